import { messageOf, type Logger } from "@weft/types";
import type { WorkflowTable } from "../workflows/workflow-repository.ts";
import type { Activation, DueSchedule, TriggerState, TriggerTable } from "./trigger-repository.ts";
import type { PreparedRun } from "../runs/run-service.ts";
import { scheduleKey, type ScheduleNode, type TriggerService } from "./trigger-service.ts";

export interface SchedulerDeps {
  table: TriggerTable;
  workflows: WorkflowTable;
  triggers: TriggerService;
  log: Logger;
  /** The longest sleep between passes (a tick is fired at most this late); default 1 s. */
  pollMs?: number;
  /**
   * How often the active workflows' schedule nodes are compared with their stored next ticks (a save through the
   * routes re-arms at once, `rearm`; this catches other writers); default 10 s.
   */
  syncMs?: number;
  /** `queue`: runs are handed to workers through Redis, and a tick's run a dead process stored is handed over by `recover`. */
  mode: "embedded" | "queue";
  /**
   * Called right after a claim is committed, before its runs are handed over. Tests set it (WEFT_TEST_EXIT_AFTER_SCHEDULE_CLAIM)
   * to kill the process at the worst moment; nothing else does.
   */
  afterClaim?: () => void;
}

/** A claimed tick's run not handed over after this long is taken to be left by a dead process. */
const RECOVER_AFTER_MS = 15_000;
const RECOVER_BATCH = 100;
/** Claimed ticks are kept a day (the stored next tick moves past them at once; this only bounds the table). */
const KEEP_TICKS_MS = 86_400_000;

/**
 * One loop per API process fires every schedule: each pass asks the database (one indexed query) for the schedules
 * of active workflows due before the next pass, fires those whose tick has come, and sleeps until the earliest of the
 * rest (at most `pollMs`). A tick is fired by the one process whose compare-and-set moved the stored next tick on
 * (`TriggerTable.claimTicks`), so any number of processes fire each tick once; no timer per schedule is held. The
 * tick's run is recorded (`queued`) in the claim's own transaction and handed over after it commits: a process that
 * dies in between leaves a stored run that `recover` (or, embedded, the next start) hands over, so each tick runs
 * exactly once.
 */
export class Scheduler {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** A pass is under way (its timer has fired): `wake` leaves it be. */
  private passing = false;
  private lastSync = 0;

  constructor(private readonly deps: SchedulerDeps) {}

  private get pollMs(): number {
    return this.deps.pollMs ?? 1000;
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops the loop; a pass under way (its runs already started) is finished first. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.passing = true;
      this.running = this.pass()
        .catch((error: unknown) => {
          this.deps.log.warn("a scheduler pass failed; trying again", { error: messageOf(error) });
          return this.pollMs;
        })
        .then((sleep) => {
          this.passing = false;
          this.schedule(sleep);
        });
    }, delayMs);
  }

  /** Fires what is due; answers how long to sleep (until the earliest coming tick, at most pollMs). */
  private async pass(): Promise<number> {
    let now = Date.now();
    if (now - this.lastSync >= (this.deps.syncMs ?? 10_000)) {
      this.lastSync = now;
      await this.sync(now);
      await this.recover(now);
    }
    const near = await this.deps.table.dueSchedules(now + this.pollMs);
    let sleep = this.pollMs;
    for (const due of near) {
      if (this.stopped) break;
      now = Date.now();
      if (due.nextFireAt <= now) await this.fireDue(due, now);
      else sleep = Math.min(sleep, due.nextFireAt - now);
    }
    return Math.max(sleep, 5);
  }

  /** The schedule node of a due row as its workflow is stored now, or undefined when it no longer is one (or the workflow was made again). */
  private async nodeOf(due: DueSchedule): Promise<{ node: ScheduleNode; stored: NonNullable<Awaited<ReturnType<WorkflowTable["get"]>>> } | undefined> {
    const stored = await this.deps.workflows.get(due.workflowId);
    if (!stored || due.activatedAt < stored.createdAt) return undefined;
    const node = this.deps.triggers.triggerNodes(due.workflowId, stored).find((n): n is ScheduleNode => n.kind === "schedule" && n.nodeId === due.nodeId);
    return node ? { node, stored } : undefined;
  }

  private async fireDue(due: DueSchedule, now: number): Promise<void> {
    const found = await this.nodeOf(due);
    if (!found) {
      // Removed from the workflow, made invalid, or the workflow was deleted: it has no next tick until armed again.
      await this.deps.table.claimTick(due.workflowId, due.nodeId, due.nextFireAt, undefined, due.scheduleKey);
      return;
    }
    const { node, stored } = found;
    const key = scheduleKey(node.config);
    const next = node.schedule.next(now);
    if (key !== due.scheduleKey) {
      // Saved with another schedule: the old one's tick is not fired; the new one starts from now.
      await this.deps.table.claimTick(due.workflowId, due.nodeId, due.nextFireAt, next, key);
      return;
    }
    const ticks = node.schedule.due(due.nextFireAt, now);
    const hook = { workflow: stored.document, stored, node, actor: due.activatedBy };
    const runs: Array<{ tick: number; run: PreparedRun }> = [];
    for (const tick of ticks) {
      try {
        runs.push({ tick, run: await this.deps.triggers.prepareTick(hook, { scheduledFor: new Date(tick).toISOString(), firedAt: new Date().toISOString() }, tick) });
      } catch (error) {
        // The tick is still claimed below (no other process fires it); a run that cannot start is reported, not retried in a storm.
        this.deps.log.warn("a scheduled run could not start", { workflowId: due.workflowId, nodeId: due.nodeId, scheduledFor: tick, error: messageOf(error) });
      }
    }
    const claim = { workflowId: due.workflowId, nodeId: due.nodeId, expected: due.nextFireAt, next, scheduleKey: key };
    const claimed = await this.deps.table.claimTicks(
      claim,
      runs.map((r) => ({ tick: r.tick, runId: r.run.record.id })),
      Date.now(),
      async () => {
        for (const r of runs) await this.deps.triggers.store(r.run);
      },
    );
    if (!claimed) return;
    this.deps.afterClaim?.();
    for (const { tick, run } of runs) await this.handOver(due.workflowId, due.nodeId, tick, () => this.deps.triggers.dispatch(hook, run));
  }

  /** Hands a claimed tick's stored run over and marks it so; a failure leaves it to `recover` (queue mode). */
  private async handOver(workflowId: string, nodeId: string, tick: number, dispatch: () => Promise<unknown>): Promise<void> {
    try {
      await dispatch();
      await this.deps.table.markDispatched(workflowId, nodeId, tick, Date.now());
    } catch (error) {
      this.deps.log.warn("a scheduled run could not be handed over; it is tried again", { workflowId, nodeId, scheduledFor: tick, error: messageOf(error) });
    }
  }

  /**
   * Queue mode: hands over the runs of ticks claimed more than `RECOVER_AFTER_MS` ago and never handed over (their
   * process died between its claim's commit and the hand-over, or Redis was down). One process takes each (compare-and-set
   * on the claim time); a run that is no longer `queued` or started is only marked. Embedded mode: one process owns the
   * data folder, and its start dispatches such runs again (`RunService.recoverInterrupted`).
   */
  private async recover(now: number): Promise<void> {
    await this.deps.table.pruneTicks(now - KEEP_TICKS_MS);
    if (this.deps.mode !== "queue") return;
    for (const tick of await this.deps.table.undispatchedTicks(now - RECOVER_AFTER_MS, RECOVER_BATCH)) {
      if (this.stopped) return;
      if (!(await this.deps.table.retakeTick(tick, Date.now()))) continue;
      this.deps.log.warn("handing over a scheduled run a stopped process claimed", { workflowId: tick.workflowId, nodeId: tick.nodeId, scheduledFor: tick.tick, runId: tick.runId });
      await this.handOver(tick.workflowId, tick.nodeId, tick.tick, () => this.deps.triggers.redispatch(tick.runId));
    }
  }

  /**
   * Arms the schedule nodes of active workflows that have no stored next tick for their current config (added or
   * changed by a save after the workflow was switched on, by a writer that did not call `rearm`). A changed one is
   * moved by compare-and-set, so two processes syncing together arm it once.
   */
  private async sync(now: number): Promise<void> {
    const [activations, states] = await Promise.all([this.deps.table.activations(), this.deps.table.states()]);
    const stateOf = new Map(states.map((s) => [`${s.workflowId}\n${s.nodeId}`, s]));
    for (const activation of activations) await this.arm(activation, (nodeId) => stateOf.get(`${activation.workflowId}\n${nodeId}`), now);
  }

  /**
   * A save of `workflowId` (its routes call this): its schedules are armed for what was saved at once, in the
   * database every API process reads, and this loop wakes to fire a tick that is now near. Off: nothing.
   */
  async rearm(workflowId: string): Promise<void> {
    try {
      const activation = await this.deps.table.activation(workflowId);
      if (!activation) return;
      const now = Date.now();
      await this.arm(activation, (nodeId) => this.deps.table.state(workflowId, nodeId), now);
      this.wake();
    } catch (error) {
      this.deps.log.warn("a saved workflow's schedules were not armed; the next sync arms them", { workflowId, error: messageOf(error) });
    }
  }

  private async arm(activation: Activation, stateOf: (nodeId: string) => TriggerState | undefined | Promise<TriggerState | undefined>, now: number): Promise<void> {
    const stored = await this.deps.workflows.get(activation.workflowId);
    if (!stored || activation.activatedAt < stored.createdAt) return;
    for (const node of this.deps.triggers.triggerNodes(activation.workflowId, stored)) {
      if (node.kind !== "schedule") continue;
      const key = scheduleKey(node.config);
      const state = await stateOf(node.nodeId);
      if (state?.scheduleKey === key && state.nextFireAt !== undefined) continue;
      if (state?.nextFireAt !== undefined) await this.deps.table.claimTick(activation.workflowId, node.nodeId, state.nextFireAt, node.schedule.next(now), key);
      else if (state?.scheduleKey !== key) await this.deps.table.armSchedule(activation.workflowId, node.nodeId, key, node.schedule.next(now), now);
    }
  }

  /** A sleeping loop passes now (one under way sleeps at most `pollMs` after it). */
  private wake(): void {
    if (this.stopped || this.timer === undefined || this.passing) return;
    clearTimeout(this.timer);
    this.schedule(0);
  }
}
