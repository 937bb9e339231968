import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { setTimeout as sleep } from "node:timers/promises";
import { createLogger, SecretRedactor, silentLogger } from "@weft/types";
import { startTracing, type ProcessTracing } from "./process-tracing.ts";
import { startOtlpReceiver, type OtlpReceiver } from "../testing/otlp-receiver.ts";
import { until } from "../testing/until.ts";

/** The JSON fields of the line `createLogger` wrote for `message` (its lines go to console.error). */
function fieldsOf(lines: string[], message: string): Record<string, unknown> {
  const line = lines.find((l) => l.includes(`] ${message}`));
  if (!line) throw new Error(`no log line "${message}" among ${JSON.stringify(lines)}`);
  const json = line.slice(line.indexOf(message) + message.length).trim();
  return json === "" ? {} : (JSON.parse(json) as Record<string, unknown>);
}

describe("log lines carry the active span's trace and span ids (tracing on)", () => {
  let receiver: OtlpReceiver;
  let tracing: ProcessTracing;
  const lines: string[] = [];

  beforeAll(() => {
    receiver = startOtlpReceiver();
    // The OTLP exporter reads its endpoint from the process's environment, as in a server.
    vi.stubEnv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url);
    const started = startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "50" }, "weft-log-test", new SecretRedactor(), silentLogger);
    if (!started) throw new Error("tracing did not start with an OTLP endpoint set");
    tracing = started;
  });
  afterEach(() => vi.restoreAllMocks());
  afterAll(async () => {
    vi.unstubAllEnvs();
    await tracing.shutdown();
    await receiver.stop();
  });

  it("writes the ids of the span the line was written in, also after an await, and none outside a span", async () => {
    vi.spyOn(console, "error").mockImplementation((line: unknown) => void lines.push(String(line)));
    const log = createLogger("trace-test", "info");
    log.info("before any span", { step: 0 });
    const ids = await tracing.tracing.tracer.startActiveSpan("logged work", async (span) => {
      log.info("at the span's start");
      await sleep(5);
      log.info("after an await", { step: 2 });
      span.end();
      return span.spanContext();
    });
    log.info("after the span");

    expect(fieldsOf(lines, "before any span")).toEqual({ step: 0 });
    expect(fieldsOf(lines, "after the span")).toEqual({});
    expect(fieldsOf(lines, "at the span's start")).toEqual({ trace_id: ids.traceId, span_id: ids.spanId });
    expect(fieldsOf(lines, "after an await")).toEqual({ step: 2, trace_id: ids.traceId, span_id: ids.spanId });
    // The ids are those of the span the collector receives, so a log search by trace id finds the trace.
    const received = await until("the span to be exported", () => receiver.spans().find((s) => s.name === "logged work"));
    expect(received).toMatchObject({ traceId: ids.traceId, spanId: ids.spanId, service: "weft-log-test" });
  });
});
