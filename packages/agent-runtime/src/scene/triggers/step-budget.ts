import type { AgentTrigger } from "@weft/types";

/** One counted deliberation: agent `to` woken by `topic`, which agent `from` published. */
interface Charge {
  from: string;
  to: string;
  topic: string;
}

const KEPT_CHARGES = 200;

/**
 * Bounds how many deliberations agents cause in each other. Only a trigger that is an event
 * published by an agent of the scene costs a step: user messages and timers come from outside
 * at their own pace and cannot loop. `reset()` (on a user message or a resume) grants a new budget.
 */
export class StepBudget {
  private spent = 0;
  private charges: Charge[] = [];

  constructor(
    readonly limit: number,
    private readonly agentIds: ReadonlySet<string>,
  ) {}

  get used(): number {
    return this.spent;
  }

  get exhausted(): boolean {
    return this.spent >= this.limit;
  }

  /** Whether delivering `trigger` costs a step: it is an event an agent of the scene published. */
  costs(trigger: AgentTrigger): trigger is Extract<AgentTrigger, { kind: "event" }> {
    return trigger.kind === "event" && this.agentIds.has(trigger.source);
  }

  /** Takes a step for the trigger if it costs one; false when the budget is used up (nothing is taken). */
  tryCharge(instanceId: string, trigger: AgentTrigger): boolean {
    if (!this.costs(trigger)) return true;
    if (this.exhausted) return false;
    this.spent++;
    this.charges.push({ from: trigger.source, to: instanceId, topic: trigger.topic });
    if (this.charges.length > KEPT_CHARGES) this.charges.splice(0, this.charges.length - KEPT_CHARGES);
    return true;
  }

  /** Continues a saved budget (the links that used it are not kept). */
  load(used: number): void {
    this.spent = used;
    this.charges = [];
  }

  reset(): void {
    this.spent = 0;
    this.charges = [];
  }

  /** Says what used the budget up: the agent-to-agent links most often followed, for the user. */
  report(): string {
    const counts = new Map<string, number>();
    for (const c of this.charges) {
      const key = `${c.from} → ${c.to} on ${c.topic}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const top = [...counts.entries()]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, 4)
      .map(([k, n]) => `${k} (${n}×)`);
    return (
      `Step budget used up: agents caused ${this.spent} deliberations in each other since the last user message (limit ${this.limit}).` +
      (top.length ? ` Most frequent: ${top.join(", ")}.` : "") +
      " The scene is paused with its queued triggers kept: resume it or send a message to grant a new budget, or raise the scene's stepBudget."
    );
  }
}
