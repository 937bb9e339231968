import type { Logger, NodeError, NodeValues, RunEvent, RunEventDraft, RunEventSink } from "@weft/types";

type Stamped = RunEventDraft & { streamId: string; seq: number; ts: number };

/**
 * Stamps events with the run's stream id, sequence number (from 0) and time, and hands them to the
 * sink. Hot path: callers check `enabled` before building an event, the per-node events are built
 * whole (one object, one shape), and nothing is re-validated.
 */
export class RunEventEmitter {
  private seq = 0;
  private closed = false;
  private sinkFailed = false;

  constructor(
    readonly streamId: string,
    private readonly sink: RunEventSink | undefined,
    private readonly logger: Logger,
  ) {}

  get enabled(): boolean {
    return this.sink !== undefined && !this.closed;
  }

  private deliver(event: RunEvent): void {
    try {
      this.sink!(event);
    } catch (err) {
      // A broken listener must not break the run; say so once.
      if (!this.sinkFailed) this.logger.warn("run event listener threw; the run goes on", { error: String(err) });
      this.sinkFailed = true;
    }
  }

  emit(draft: RunEventDraft): void {
    if (this.sink === undefined || this.closed) return;
    const event = draft as Stamped;
    event.streamId = this.streamId;
    event.seq = this.seq++;
    event.ts = Date.now();
    this.deliver(event as RunEvent);
  }

  nodeStarted(nodeId: string, invocationId: string, nodeType: string, inputs: NodeValues, attempt: number, ts: number): void {
    this.deliver({ type: "node.started", streamId: this.streamId, seq: this.seq++, ts, nodeId, invocationId, nodeType, inputs, attempt });
  }

  nodeCompleted(nodeId: string, invocationId: string, outputs: NodeValues, durationMs: number, cached: boolean, ts: number): void {
    this.deliver({ type: "node.completed", streamId: this.streamId, seq: this.seq++, ts, nodeId, invocationId, outputs, durationMs, cached });
  }

  nodeFailed(nodeId: string, invocationId: string, error: NodeError, durationMs: number, ts: number): void {
    this.deliver({ type: "node.failed", streamId: this.streamId, seq: this.seq++, ts, nodeId, invocationId, error, durationMs });
  }

  nodeSkipped(nodeId: string, reason: string, causeNodeId: string | undefined): void {
    this.emit({ type: "node.skipped", nodeId, reason, ...(causeNodeId !== undefined ? { causeNodeId } : {}) });
  }

  /** After the final run event nothing more is emitted (e.g. by a node that ignored cancellation). */
  close(): void {
    this.closed = true;
  }
}
