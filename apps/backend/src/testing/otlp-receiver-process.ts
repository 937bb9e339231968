/**
 * `bun otlp-receiver-process.ts <file>`: the OTLP receiver of `otlp-receiver.ts` in a process of its own, which
 * appends each received span's name to `<file>` (a line each) as it arrives. Prints `{"url":…}` once listening. A
 * test reads the file synchronously, so it sees spans arrive while its own thread is blocked.
 */
import { appendFileSync } from "node:fs";
import { startOtlpReceiver } from "./otlp-receiver.ts";

const file = process.argv[2];
if (!file) throw new Error("usage: bun otlp-receiver-process.ts <file>");
const receiver = startOtlpReceiver({ onSpan: (span) => appendFileSync(file, `${span.name}\n`) });
console.log(JSON.stringify({ url: receiver.url }));
process.on("SIGTERM", () => void receiver.stop().then(() => process.exit(0)));
