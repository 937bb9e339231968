import { afterEach, describe, expect, it, vi } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SecretRedactor, silentLogger, type Logger } from "@weft/types";
import { startTracing, type ProcessTracing } from "./process-tracing.ts";
import { startOtlpReceiver } from "../testing/otlp-receiver.ts";
import { awaitAnnouncement, collectOutput } from "../testing/child-output.ts";
import { capturingLogger } from "../testing/leak-probes.ts";
import { tempDir } from "../testing/temp-dirs.ts";
import { until } from "../testing/until.ts";

/** Tracing with the OTLP exporter pointed at `url` and the batch settings `batch` (OTEL_BSP_*), as a server reads them. */
function traceTo(url: string, batch: Record<string, string>, log: Logger = silentLogger): ProcessTracing {
  // The OTLP exporter reads its endpoint from the process's environment, as in a server.
  vi.stubEnv("OTEL_EXPORTER_OTLP_ENDPOINT", url);
  const started = startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: url, ...batch }, "weft-export-thread-test", new SecretRedactor(), log);
  if (!started) throw new Error("tracing did not start with an OTLP endpoint set");
  return started;
}

function endSpans(tracing: ProcessTracing, names: string[]): void {
  for (const name of names) tracing.tracing.tracer.startSpan(name).end();
}

/** Never by the timer: in these tests a batch goes out when it is full, or at shutdown. */
const NO_TIMER = { OTEL_BSP_SCHEDULE_DELAY: "3600000" };

describe("spans are exported on a thread of their own (tracing on)", () => {
  const stops: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    vi.unstubAllEnvs();
    for (const stop of stops.splice(0).reverse()) await stop();
  });

  it("a full batch reaches the receiver while this thread is blocked in synchronous work", async () => {
    // The receiver in a process of its own, writing what it receives to a file: this thread reads the file while blocked.
    const file = join(tempDir("weft-export-thread-"), "received.txt");
    const proc = Bun.spawn([process.execPath, fileURLToPath(new URL("../testing/otlp-receiver-process.ts", import.meta.url)), file], { stdout: "pipe", stderr: "pipe" });
    stops.push(async () => {
      proc.kill();
      await proc.exited;
    });
    const url = await awaitAnnouncement(proc, collectOutput(proc), /"url":"([^"]+)"/, "the OTLP receiver");
    const received = () => (existsSync(file) ? readFileSync(file, "utf8").split("\n") : []);
    const tracing = traceTo(url, { ...NO_TIMER, OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "2" });
    stops.push(() => tracing.shutdown());

    // A first batch, waited for as usual: the export thread is up.
    endSpans(tracing, ["warm-up 1", "warm-up 2"]);
    await until("the first batch", () => (received().includes("warm-up 2") ? true : undefined));
    // And its answer heard: one batch is out at a time, so a batch ended before that answer would wait for it, and this
    // thread, blocked below, could not hear it (the receiver writes the file before it answers; on a busy machine the
    // loop began first).
    await tracing.forceFlush();

    // The second batch is full when its second span ends; then this thread runs without yielding until the
    // receiver has it (or 60 s pass). Exported on this thread, the batch could go out only after the loop.
    endSpans(tracing, ["while blocked 1", "while blocked 2"]);
    const deadline = Date.now() + 60_000;
    let arrivedWhileBlocked = false;
    while (!arrivedWhileBlocked && Date.now() < deadline) arrivedWhileBlocked = received().includes("while blocked 2");
    expect(arrivedWhileBlocked).toBe(true);
  }, 120_000);

  it("shutdown resolves once every ended span was received: none is lost, none sent twice", async () => {
    const receiver = startOtlpReceiver();
    stops.push(() => receiver.stop());
    const tracing = traceTo(receiver.url, NO_TIMER);
    // 1,300 spans: two full batches of 512 go out while they end, the rest waits for shutdown.
    const names = Array.from({ length: 1300 }, (_, i) => `span ${i}`);
    for (let i = 0; i < names.length; i += 100) {
      endSpans(tracing, names.slice(i, i + 100));
      await Bun.sleep(0);
    }
    await tracing.shutdown();
    const got = receiver.spans().map((s) => s.name);
    expect(got.length).toBe(names.length);
    expect(new Set(got)).toEqual(new Set(names));
    expect(receiver.rejected()).toEqual([]);
  });

  it("a full queue drops the spans beyond OTEL_BSP_MAX_QUEUE_SIZE and logs how many", async () => {
    const receiver = startOtlpReceiver();
    stops.push(() => receiver.stop());
    const lines: string[] = [];
    const tracing = traceTo(receiver.url, { ...NO_TIMER, OTEL_BSP_MAX_QUEUE_SIZE: "4", OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "2" }, capturingLogger(lines));
    // In one turn of the event loop: spans 1-2 go out as a batch, 3-6 fill the queue, 7-10 find it full.
    endSpans(
      tracing,
      Array.from({ length: 10 }, (_, i) => `span ${i + 1}`),
    );
    await tracing.shutdown();
    expect(receiver.spans().map((s) => s.name)).toEqual(["span 1", "span 2", "span 3", "span 4", "span 5", "span 6"]);
    const warning = lines.find((line) => line.startsWith("warn ") && line.includes("dropped"));
    expect(warning).toBeDefined();
    expect(JSON.parse(warning?.slice(warning.indexOf("{")) ?? "{}")).toMatchObject({ dropped: 4, maxQueueSize: 4 });
  });
});
