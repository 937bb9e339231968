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

/** The least time between two updates of one resource, by default: a client re-reads the run on each. */
export const RESOURCE_UPDATE_MS = 250;

/** One subscription: the hub listener to drop, and the update held back until `updateMs` has passed since the last. */
interface Subscription {
  unsubscribe: () => void;
  lastSent: number;
  pending?: ReturnType<typeof setTimeout>;
}

/**
 * One session's `resources/subscribe`s to runs: the run's journal events (as the hub publishes them,
 * after they are stored) tell the client the resource changed (`notifications/resources/updated`,
 * which the client answers with `resources/read`), until the run ends: its last event sends the last
 * update at once and drops the subscription. Updates of one resource are at least `updateMs` apart
 * (the first at once, changes meanwhile in one update at the end of the wait): each makes the client
 * read the whole run, and a run of thousands of fast nodes would otherwise have it read thousands of times.
 */
export class RunSubscriptions {
  private readonly active = new Map<string, Subscription>();

  constructor(
    private readonly storage: RunsStorage,
    private readonly hub: EventHub,
    private readonly updated: (uri: string) => Promise<void>,
    private readonly updateMs: number = RESOURCE_UPDATE_MS,
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
      const subscription = this.active.get(uri);
      if (!subscription) return;
      if (events.some((e) => ENDING_EVENTS.has(e.type))) {
        this.unsubscribe(uri);
        void this.updated(uri);
        return;
      }
      this.changed(uri, subscription);
    });
    this.active.set(uri, { unsubscribe, lastSent: -Infinity });
    const record = await this.storage.runs.get(resource.id);
    if (!record) {
      this.unsubscribe(uri);
      throw new McpError(-32002, `Resource not found: ${uri}. resources/list names the recent runs.`, { uri });
    }
    // An ended run changes no more: nothing to follow.
    if (ENDED.has(record.status)) this.unsubscribe(uri);
  }

  unsubscribe(uri: string): void {
    const subscription = this.active.get(uri);
    if (!subscription) return;
    subscription.unsubscribe();
    clearTimeout(subscription.pending);
    this.active.delete(uri);
  }

  /** Sends the update now, or once `updateMs` has passed since the last (one update for every change meanwhile). */
  private changed(uri: string, subscription: Subscription): void {
    if (subscription.pending !== undefined) return;
    const wait = subscription.lastSent + this.updateMs - Date.now();
    const send = () => {
      subscription.pending = undefined;
      subscription.lastSent = Date.now();
      void this.updated(uri);
    };
    if (wait <= 0) send();
    else subscription.pending = setTimeout(send, wait);
  }

  close(): void {
    for (const uri of [...this.active.keys()]) this.unsubscribe(uri);
  }
}
