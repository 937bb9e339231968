import { TraceFlags, type Attributes } from "@opentelemetry/api";
import type { InstrumentationScope } from "@opentelemetry/core";
import type { Logger } from "@weft/types";
import { encodeSpans, spanRecord, type SpanBatch, type SpanRecord } from "./span-record.ts";
import { keepsAlive } from "../background-thread.ts";
import type { RecordedSpan } from "./recorded-span.ts";

/** What the export thread is asked, in order: `start` once, then batches, then `shutdown`. */
export type ExportRequest = { kind: "start"; env: Record<string, string>; resource: Attributes } | { kind: "export"; id: number; batch: SpanBatch } | { kind: "shutdown"; id: number };

/** The export thread's answer to an `export` or `shutdown`. */
export type ExportReply = { id: number; ok: true } | { id: number; ok: false; message: string };

export interface WorkerSpanProcessorOptions {
  /** OTEL_BSP_MAX_QUEUE_SIZE: ended spans held here while a batch is out; beyond it spans are dropped (and counted). */
  maxQueueSize: number;
  /** OTEL_BSP_MAX_EXPORT_BATCH_SIZE: a batch goes out as soon as it has this many spans. */
  maxExportBatchSize: number;
  /** OTEL_BSP_SCHEDULE_DELAY: the most an ended span waits for its batch (the SDK's default 5000 ms). */
  scheduledDelayMillis?: number | undefined;
  /** The exporter's own settings (`OTEL_*`: endpoint, headers, timeout), as this process reads them. */
  exporterEnv: Record<string, string>;
  /** The resource's attributes, which the export thread rebuilds its resource from. */
  resource: Attributes;
  log: Logger;
}

/** The SDK's default OTEL_BSP_SCHEDULE_DELAY. */
const DEFAULT_SCHEDULED_DELAY_MS = 5000;

/** Only the OTEL_* variables cross: the exporter reads nothing else, and the thread needs no other secret. */
export function otelEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in env) {
    const value = env[name];
    if (name.startsWith("OTEL_") && value !== undefined) out[name] = value;
  }
  return out;
}

/**
 * The batch span processor with its exporter on a thread of its own (`span-export-worker.ts`, which owns the SDK's
 * OTLP/HTTP protobuf exporter): on `onEnd` an ended span's record is queued; a batch is encoded as JSON and goes
 * to the thread when it is full or OTEL_BSP_SCHEDULE_DELAY after its first span, one batch at a time, as the SDK's
 * `BatchSpanProcessor` does. The protobuf encoding and the HTTP export no longer run on the thread that runs agents
 * (bench/spans.bench.ts: that thread's CPU for a step's 13 spans 0.24 → 0.15 ms; the process's 0.30 → 0.32 ms, the
 * export thread's share included). `forceFlush` and `shutdown` resolve once the thread answered for every span
 * ended before them; a failed export is logged (once until one succeeds again), never thrown.
 */
export class WorkerSpanProcessor {
  /** Ended spans waiting for their batch, as records (`spanRecord`); a batch is encoded as it goes. */
  private queue: SpanRecord[] = [];
  private readonly scopes: InstrumentationScope[] = [];
  private readonly scopeIndex = new Map<InstrumentationScope, number>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The timer's or a full queue's batch is out (at most one, as in the SDK's processor). */
  private exporting = false;
  private dropped = 0;
  private failing = false;
  private nextId = 1;
  /** Requests the thread has not answered yet, by id. */
  private readonly pending = new Map<number, { answered: Promise<void>; resolve: () => void }>();
  private worker: Worker | undefined;
  private shutDown: Promise<void> | undefined;
  private readonly delayMs: number;

  constructor(private readonly options: WorkerSpanProcessorOptions) {
    this.delayMs = options.scheduledDelayMillis ?? DEFAULT_SCHEDULED_DELAY_MS;
  }

  onEnd(span: RecordedSpan): void {
    if (this.shutDown || (span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (this.queue.length >= this.options.maxQueueSize) {
      this.dropped++;
      return;
    }
    this.queue.push(spanRecord(span, this.scopeOf(span.instrumentationScope)));
    this.schedule();
  }

  forceFlush(): Promise<void> {
    return this.shutDown ?? this.flushAll();
  }

  shutdown(): Promise<void> {
    return (this.shutDown ??= this.flushAll().then(() => this.stopWorker()));
  }

  private scopeOf(scope: InstrumentationScope): number {
    let i = this.scopeIndex.get(scope);
    if (i === undefined) {
      i = this.scopes.push(scope) - 1;
      this.scopeIndex.set(scope, i);
    }
    return i;
  }

  private schedule(): void {
    if (this.exporting) return;
    if (this.queue.length >= this.options.maxExportBatchSize) {
      this.exportOne();
      return;
    }
    if (this.timer !== undefined || this.queue.length === 0) return;
    this.timer = setTimeout(() => this.exportOne(), this.delayMs);
    // A span waiting for its batch does not keep the process alive; forceFlush and shutdown send it.
    this.timer.unref();
  }

  /** The timer's or a full queue's batch; the next is scheduled when the thread answered for this one. */
  private exportOne(): void {
    this.clearTimer();
    if (this.queue.length === 0) return;
    this.exporting = true;
    void this.send(this.take()).then(() => {
      this.exporting = false;
      this.schedule();
    });
  }

  /** Every queued span, in batches, and the answers for them and for whatever is already out. */
  private flushAll(): Promise<void> {
    this.clearTimer();
    const answers = [...this.pending.values()].map((p) => p.answered);
    while (this.queue.length > 0) answers.push(this.send(this.take()));
    return Promise.all(answers).then(() => undefined);
  }

  private take(): SpanBatch {
    const size = this.options.maxExportBatchSize;
    let spans: SpanRecord[];
    if (this.queue.length <= size) {
      spans = this.queue;
      this.queue = [];
    } else spans = this.queue.splice(0, size);
    if (this.dropped > 0) {
      this.options.log.warn("tracing: spans dropped, the export queue was full (OTEL_BSP_MAX_QUEUE_SIZE)", { dropped: this.dropped, maxQueueSize: this.options.maxQueueSize });
      this.dropped = 0;
    }
    return { scopes: this.scopes, spans: encodeSpans(spans) };
  }

  private send(batch: SpanBatch): Promise<void> {
    return this.request((id) => ({ kind: "export", id, batch }), [batch.spans.buffer]);
  }

  /** Posts a request to the thread; resolves when it answered (or ended): the answer itself is handled in `receive`. */
  private request(make: (id: number) => ExportRequest, transfer: Transferable[] = []): Promise<void> {
    const worker = this.start();
    const id = this.nextId++;
    // Referenced while an answer is owed (an unreferenced thread's reply, awaited by a process with nothing else to
    // wait for, kept its event loop spinning: storage/wal-checkpointer.ts); unreferenced when idle.
    if (this.pending.size === 0) keepsAlive(worker, true);
    let resolve = () => {};
    const answered = new Promise<void>((r) => (resolve = r));
    this.pending.set(id, { answered, resolve });
    worker.postMessage(make(id), transfer);
    return answered;
  }

  private receive(reply: ExportReply): void {
    if (!reply.ok && !this.failing) this.options.log.warn("tracing: span export failed; later failures are not logged until one succeeds", { message: reply.message });
    this.failing = !reply.ok;
    const waiting = this.pending.get(reply.id);
    this.pending.delete(reply.id);
    if (this.pending.size === 0 && this.worker) keepsAlive(this.worker, false);
    waiting?.resolve();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL("./span-export-worker.ts", import.meta.url).href, { ref: false });
    worker.onmessage = (event: MessageEvent<ExportReply>) => this.receive(event.data);
    worker.onerror = (event: ErrorEvent) => this.lost(worker, `the span export thread failed: ${event.message}`);
    worker.addEventListener("close", () => this.lost(worker, "the span export thread ended"));
    const start: ExportRequest = { kind: "start", env: this.options.exporterEnv, resource: this.options.resource };
    worker.postMessage(start);
    this.worker = worker;
    return worker;
  }

  /** The thread is gone: what it owed is answered as failed, and the next batch starts a new one. */
  private lost(worker: Worker, message: string): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    worker.terminate();
    for (const id of [...this.pending.keys()]) this.receive({ id, ok: false, message });
  }

  /** The exporter's own shutdown, on its thread; then the thread ends. */
  private async stopWorker(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    await this.request((id) => ({ kind: "shutdown", id }));
    this.worker = undefined;
    worker.terminate();
  }

  private clearTimer(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
