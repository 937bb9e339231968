/**
 * A real OTLP/HTTP receiver (`startOtlpReceiver`: decodes every export with opentelemetry-proto's protobuf code) in a
 * process of its own, so a bench that exports to it does not count the receiver's decoding as its own cost. Prints
 * `{"url":…}` once listening; on SIGTERM prints `{"spans":…,"rejected":…}` and exits.
 */
import { startOtlpReceiver } from "../../apps/backend/src/testing/otlp-receiver.ts";

const receiver = startOtlpReceiver();
console.log(JSON.stringify({ url: receiver.url }));
process.on("SIGTERM", () => {
  console.log(JSON.stringify({ spans: receiver.spans().length, rejected: receiver.rejected().length }));
  void receiver.stop().then(() => process.exit(0));
});
