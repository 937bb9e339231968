import type { Logger, RunEvent, RunEventDraft, RunEventSink } from "@weft/types";
import { messageOf } from "@weft/types";

/**
 * The `agent.*` events of one conversation: stamped with the conversation id as their stream and a
 * `seq` that goes on across loops (and restarts, from the saved session), so a client resumes from
 * the last number it saw. A failing sink is logged, never allowed to break the loop.
 */
export class AgentEventStream {
  constructor(
    readonly streamId: string,
    private seq: number,
    private readonly sink: RunEventSink | undefined,
    private readonly logger: Logger,
  ) {}

  get nextSeq(): number {
    return this.seq;
  }

  emit(draft: RunEventDraft): void {
    const event = { ...draft, streamId: this.streamId, seq: this.seq++, ts: Date.now() } as RunEvent;
    if (!this.sink) return;
    try {
      this.sink(event);
    } catch (error) {
      this.logger.warn("agent event sink failed", { type: event.type, error: messageOf(error) });
    }
  }
}
