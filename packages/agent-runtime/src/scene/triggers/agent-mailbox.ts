import type { AgentTrigger, MailboxConfig, MailboxState } from "@weft/types";
import { TriggerQueue, type EnqueueOutcome } from "./trigger-queue.ts";

/** Runs one deliberation for a trigger; the signal is aborted when the scene stops. */
export type RunDeliberation = (trigger: AgentTrigger, signal: AbortSignal) => Promise<void>;

/** How a mailbox asks its owner for permission and tells it what happened. */
export interface MailboxHooks {
  /**
   * Asked with the next waiting trigger whenever the agent is free. Returning true starts it now
   * (the owner counts it, e.g. against a step budget); false leaves it waiting at the head.
   */
  admit(trigger: AgentTrigger): boolean;
  onQueued?(trigger: AgentTrigger): void;
  onCoalesced?(trigger: AgentTrigger, replaced: AgentTrigger): void;
  onDropped?(trigger: AgentTrigger): void;
  onStarted?(trigger: AgentTrigger): void;
  /** `error` is what the deliberation threw, if it failed. */
  onFinished?(trigger: AgentTrigger, error: unknown): void;
}

/**
 * One agent instance's inbox. Triggers that arrive while the agent deliberates wait in a bounded
 * queue; the agent never runs two deliberations at once. A failing deliberation is reported and
 * the next trigger is taken as usual.
 */
export class AgentMailbox {
  private readonly queue: TriggerQueue;
  private current: { trigger: AgentTrigger; controller: AbortController; settled: Promise<void> } | null = null;
  private closed = false;
  private delivered = 0;
  private dropped = 0;
  private coalesced = 0;

  constructor(
    readonly instanceId: string,
    config: MailboxConfig,
    private readonly run: RunDeliberation,
    private readonly hooks: MailboxHooks,
  ) {
    this.queue = new TriggerQueue(config);
  }

  /** Offers a trigger: it starts at once when the agent is free and admitted, else it waits. */
  push(trigger: AgentTrigger): EnqueueOutcome {
    const outcome = this.queue.offer(trigger);
    switch (outcome.kind) {
      case "queued":
        this.hooks.onQueued?.(trigger);
        if (outcome.evicted) this.drop(outcome.evicted);
        break;
      case "coalesced":
        this.coalesced++;
        this.hooks.onCoalesced?.(trigger, outcome.replaced);
        break;
      case "refused":
        this.drop(trigger);
        break;
      default: {
        const never: never = outcome;
        return never;
      }
    }
    this.pump();
    return outcome;
  }

  /** Starts the next waiting trigger if the agent is free and the owner admits it. */
  pump(): void {
    if (this.current || this.closed) return;
    const next = this.queue.peek();
    if (!next || !this.hooks.admit(next)) return;
    this.queue.shift();
    this.delivered++;
    const controller = new AbortController();
    const current = { trigger: next, controller, settled: Promise.resolve() };
    this.current = current;
    this.hooks.onStarted?.(next);
    // The deliberation starts on a later tick, so it never runs inside the caller's stack (e.g. the bus's delivery).
    current.settled = Promise.resolve()
      .then(() => this.run(next, controller.signal))
      .then(
        () => this.finish(next, undefined),
        (err: unknown) => this.finish(next, err ?? new Error("deliberation failed")),
      );
  }

  get busy(): boolean {
    return this.current !== null;
  }

  get inFlight(): AgentTrigger | null {
    return this.current?.trigger ?? null;
  }

  /** Triggers waiting, oldest first. */
  waiting(): AgentTrigger[] {
    return this.queue.toArray();
  }

  /** Whether a trigger waits that could start now (the agent is free). */
  get ready(): boolean {
    return !this.closed && !this.current && this.queue.length > 0;
  }

  /** Stops taking triggers, aborts the running deliberation and resolves once it has settled. */
  async close(reason: string): Promise<void> {
    this.closed = true;
    const current = this.current;
    if (!current) return;
    current.controller.abort(new Error(reason));
    await current.settled;
  }

  toState(): MailboxState {
    return { queue: this.queue.toArray(), inFlight: this.inFlight, delivered: this.delivered, dropped: this.dropped, coalesced: this.coalesced };
  }

  /**
   * Loads saved state. A trigger that was in flight is delivered again, first, marked `resumed`
   * (at least once: its deliberation may have done part of its work before the save).
   */
  load(state: MailboxState): void {
    if (this.current) throw new Error(`mailbox of ${this.instanceId} is busy; load state before the scene starts`);
    this.queue.load(state.inFlight ? [{ ...state.inFlight, resumed: true }, ...state.queue] : state.queue);
    this.delivered = state.delivered - (state.inFlight ? 1 : 0);
    this.dropped = state.dropped;
    this.coalesced = state.coalesced;
  }

  private drop(trigger: AgentTrigger): void {
    this.dropped++;
    this.hooks.onDropped?.(trigger);
  }

  private finish(trigger: AgentTrigger, error: unknown): void {
    this.current = null;
    try {
      this.hooks.onFinished?.(trigger, error);
    } finally {
      this.pump();
    }
  }
}
