import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { RunStatus } from "@weft/types";
import type { EventHub } from "../events/event-hub.ts";
import type { RunsStorage } from "../runs/runs-storage.ts";
import type { WeftResource } from "./weft-resources.ts";

/** Subscriptions one MCP session may hold at once (each is a hub listener). */
export const MAX_SUBSCRIPTIONS = 100;

/** A run in one of these will change no more: its resources need no subscription. */
const ENDED: ReadonlySet<RunStatus> = new Set(["completed", "failed", "cancelled", "interrupted", "budget_exceeded"]);
const ENDING_EVENTS = new Set(["run.completed", "run.failed", "run.cancelled"]);

/**
 * One session's `resources/subscribe`s to runs: each of the run's journal events (as the hub
 * publishes them, after they are stored) tells the client the resource changed
 * (`notifications/resources/updated`, which the client answers with `resources/read`), until the run
 * ends: its last event sends the last update and drops the subscription.
 */
export class RunSubscriptions {
  private readonly active = new Map<string, () => void>();

  constructor(
    private readonly storage: RunsStorage,
    private readonly hub: EventHub,
    private readonly updated: (uri: string) => Promise<void>,
  ) {}

  get size(): number {
    return this.active.size;
  }

  async subscribe(uri: string, resource: WeftResource): Promise<void> {
    if (resource.kind === "workflow" || this.active.has(uri)) return;
    if (this.active.size >= MAX_SUBSCRIPTIONS) {
      throw new McpError(ErrorCode.InvalidRequest, `TOO_MANY_SUBSCRIPTIONS: a session holds at most ${MAX_SUBSCRIPTIONS}; unsubscribe from ended runs first.`);
    }
    // Listening before reading the status: an ending published in between is not missed.
    const unsubscribe = this.hub.subscribe(resource.id, (events) => {
      if (!this.active.has(uri)) return;
      void this.updated(uri);
      if (events.some((e) => ENDING_EVENTS.has(e.type))) this.unsubscribe(uri);
    });
    this.active.set(uri, unsubscribe);
    const record = await this.storage.runs.get(resource.id);
    if (!record) {
      this.unsubscribe(uri);
      throw new McpError(-32002, `Resource not found: ${uri}. resources/list names the recent runs.`, { uri });
    }
    // An ended run changes no more: nothing to follow.
    if (ENDED.has(record.status)) this.unsubscribe(uri);
  }

  unsubscribe(uri: string): void {
    this.active.get(uri)?.();
    this.active.delete(uri);
  }

  close(): void {
    for (const uri of [...this.active.keys()]) this.unsubscribe(uri);
  }
}
