import type { AgentTrigger, MailboxConfig } from "@weft/types";

/** What happened to a trigger offered to a full or non-full queue. */
export type EnqueueOutcome = { kind: "queued"; evicted?: AgentTrigger } | { kind: "coalesced"; replaced: AgentTrigger } | { kind: "refused" };

/** Triggers that may stand for one another when coalescing: same event topic, or same timer. */
function coalesceKey(t: AgentTrigger): string | undefined {
  switch (t.kind) {
    case "event":
      return `event:${t.topic}`;
    case "timer":
      return `timer:${t.timerId}`;
    case "user":
      return undefined;
    default: {
      const never: never = t;
      return never;
    }
  }
}

/**
 * The waiting triggers of one agent, first in first out, bounded by `capacity`. When full, the
 * overflow policy decides: `drop-oldest` evicts the oldest waiting trigger, `drop-newest` refuses
 * the arriving one, `coalesce` replaces a waiting trigger of the same topic or timer with the
 * arriving (newer) one in its place, and otherwise evicts the oldest. User messages are never
 * dropped: another trigger is evicted instead, and only when every waiting trigger is a user
 * message does the queue grow past its capacity.
 */
export class TriggerQueue {
  private items: AgentTrigger[] = [];

  constructor(private readonly config: MailboxConfig) {}

  get length(): number {
    return this.items.length;
  }

  peek(): AgentTrigger | undefined {
    return this.items[0];
  }

  shift(): AgentTrigger | undefined {
    return this.items.shift();
  }

  /** Replaces the contents with saved triggers, as they were (even past the capacity). */
  load(items: readonly AgentTrigger[]): void {
    this.items = [...items];
  }

  toArray(): AgentTrigger[] {
    return [...this.items];
  }

  offer(trigger: AgentTrigger): EnqueueOutcome {
    if (this.items.length < this.config.capacity) {
      this.items.push(trigger);
      return { kind: "queued" };
    }
    if (this.config.overflow === "coalesce") {
      const key = coalesceKey(trigger);
      const at = key === undefined ? -1 : this.items.findIndex((t) => coalesceKey(t) === key);
      if (at >= 0) {
        const replaced = this.items[at];
        this.items[at] = { ...trigger, coalesced: trigger.coalesced + replaced.coalesced + 1 };
        return { kind: "coalesced", replaced };
      }
    }
    const victim = this.config.overflow === "drop-newest" && trigger.kind !== "user" ? -1 : this.items.findIndex((t) => t.kind !== "user");
    if (victim >= 0) {
      const [evicted] = this.items.splice(victim, 1);
      this.items.push(trigger);
      return { kind: "queued", evicted };
    }
    if (trigger.kind === "user") {
      this.items.push(trigger);
      return { kind: "queued" };
    }
    return { kind: "refused" };
  }
}
