import type { ProgressToken, ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import { RunEventSchema, messageOf, type Logger, type RunEvent } from "@weft/types";
import type { EventHub } from "../events/event-hub.ts";
import type { StoredEvent } from "../events/event-repository.ts";
import type { RunsStorage } from "../runs/runs-storage.ts";

/** A streamed chunk longer than this is cut in its progress message: progress is for a person watching, the result carries the data. */
const MAX_CHUNK_CHARS = 2_000;
/** Events read per page when catching up from the journal. */
const PAGE = 500;

/** What a person watching the call should read for a run event, or undefined for events that are not progress. */
export function progressMessage(event: RunEvent): string | undefined {
  switch (event.type) {
    case "node.started":
      return `node ${event.nodeId} (${event.nodeType}) started${event.attempt > 1 ? ` (attempt ${event.attempt})` : ""}`;
    case "node.completed":
      // A node that completed within its call has no node.started: its completion names the type.
      return `node ${event.nodeId}${event.nodeType === undefined ? "" : ` (${event.nodeType})`} finished${event.cached ? " (from the cache)" : ""}`;
    case "node.failed":
      return `node ${event.nodeId} failed (${event.error.code}): ${event.error.message}`;
    case "node.chunk": {
      const text = typeof event.chunk === "string" ? event.chunk : JSON.stringify(event.chunk);
      return text.length > MAX_CHUNK_CHARS ? `${text.slice(0, MAX_CHUNK_CHARS)}…` : text;
    }
    default:
      return undefined;
  }
}

type Send = (notification: ServerNotification) => Promise<void>;

/**
 * Sends the client a progress notification for each node of the run (started, finished or failed,
 * each streamed chunk), in the journal's order: from the hub while the run goes on, and from the
 * stored events for what was published before the subscription began. `progress` counts the
 * notifications (it must increase; a run's node count does not bound them: loops and maps repeat nodes).
 */
export class RunProgress {
  private progress = 0;
  private lastSeq = -1;
  /** Notifications go out one at a time, in order. */
  private sending = Promise.resolve();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly storage: RunsStorage,
    hub: EventHub,
    private readonly runId: string,
    private readonly token: ProgressToken,
    private readonly send: Send,
    private readonly log: Logger,
  ) {
    this.unsubscribe = hub.subscribe(runId, (events) => this.take(events));
  }

  /** The first notification: which run to look for in Weft. */
  started(): Promise<void> {
    this.notify(`Weft run ${this.runId} started`);
    return this.sending;
  }

  /** Catches up from the journal (events stored before the subscription, or all of them once the run ended) and waits until every notification is sent. */
  async flush(): Promise<void> {
    for (let page = await this.storage.events.listAfter(this.runId, this.lastSeq, PAGE); page.length > 0; page = await this.storage.events.listAfter(this.runId, this.lastSeq, PAGE)) {
      this.take(page);
    }
    await this.sending;
  }

  close(): void {
    this.unsubscribe();
  }

  private take(events: readonly StoredEvent[]): void {
    for (const stored of events) {
      // Live events that overtake the catch-up are taken when it reaches them, so the order stays the journal's.
      if (stored.seq !== this.lastSeq + 1) continue;
      this.lastSeq = stored.seq;
      const parsed = RunEventSchema.safeParse(JSON.parse(stored.json));
      const message = parsed.success ? progressMessage(parsed.data) : undefined;
      if (message !== undefined) this.notify(message);
    }
  }

  private notify(message: string): void {
    const params = { progressToken: this.token, progress: ++this.progress, message };
    this.sending = this.sending.then(() =>
      // A client gone away is the call's own ending (the abort cancels the run); a lost notification is only logged.
      this.send({ method: "notifications/progress", params }).catch((error: unknown) => this.log.debug("an MCP progress notification was not sent", { runId: this.runId, error: messageOf(error) })),
    );
  }
}
