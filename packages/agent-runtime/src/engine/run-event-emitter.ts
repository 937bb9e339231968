import type { Logger, RunEvent, RunEventDraft, RunEventSink } from "@weft/types";

type Stamped = RunEventDraft & { streamId: string; seq: number; ts: number };

/**
 * Stamps events with the run's stream id, sequence number (from 0) and time, and hands them to the
 * sink. Hot path: callers check `enabled` before building an event, and events are not re-validated.
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

  emit(draft: RunEventDraft): void {
    if (this.sink === undefined || this.closed) return;
    const event = draft as Stamped;
    event.streamId = this.streamId;
    event.seq = this.seq++;
    event.ts = Date.now();
    try {
      this.sink(event as RunEvent);
    } catch (err) {
      // A broken listener must not break the run; say so once.
      if (!this.sinkFailed) this.logger.warn("run event listener threw; the run goes on", { error: String(err) });
      this.sinkFailed = true;
    }
  }

  /** After the final run event nothing more is emitted (e.g. by a node that ignored cancellation). */
  close(): void {
    this.closed = true;
  }
}
