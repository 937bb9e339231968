import { messageOf, type Logger } from "@weft/types";
import type { WorkflowRepository } from "../workflows/workflow-repository.ts";
import type { DueSchedule, TriggerTable } from "./trigger-repository.ts";
import { scheduleKey, type ScheduleNode, type TriggerService } from "./trigger-service.ts";

export interface SchedulerDeps {
  table: TriggerTable;
  workflows: WorkflowRepository;
  triggers: TriggerService;
  log: Logger;
  /** The longest sleep between passes (a tick is fired at most this late); default 1 s. */
  pollMs?: number;
  /** How often the active workflows' schedule nodes are compared with their stored next ticks (a save re-arms them); default 10 s. */
  syncMs?: number;
}

/**
 * One loop per API process fires every schedule: each pass asks the database (one indexed query) for the schedules
 * of active workflows due before the next pass, fires those whose tick has come, and sleeps until the earliest of the
 * rest (at most `pollMs`). A tick is fired by the one process whose compare-and-set moved the stored next tick on
 * (`TriggerTable.claimTick`), so any number of processes fire each tick once; no timer per schedule is held.
 */
export class Scheduler {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
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
      this.running = this.pass()
        .catch((error: unknown) => {
          this.deps.log.warn("a scheduler pass failed; trying again", { error: messageOf(error) });
          return this.pollMs;
        })
        .then((sleep) => this.schedule(sleep));
    }, delayMs);
  }

  /** Fires what is due; answers how long to sleep (until the earliest coming tick, at most pollMs). */
  private async pass(): Promise<number> {
    let now = Date.now();
    if (now - this.lastSync >= (this.deps.syncMs ?? 10_000)) {
      this.lastSync = now;
      await this.sync(now);
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
  private async nodeOf(due: DueSchedule): Promise<{ node: ScheduleNode; stored: NonNullable<Awaited<ReturnType<WorkflowRepository["get"]>>> } | undefined> {
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
    if (!(await this.deps.table.claimTick(due.workflowId, due.nodeId, due.nextFireAt, next, key))) return;
    for (const tick of ticks) {
      const firedAt = Date.now();
      try {
        await this.deps.triggers.fire(
          { workflow: stored.document, stored, node, actor: due.activatedBy },
          { scheduledFor: new Date(tick).toISOString(), firedAt: new Date(firedAt).toISOString() },
          tick,
        );
      } catch (error) {
        // The tick is claimed (no other process fires it); a run that cannot start is reported, not retried in a storm.
        this.deps.log.warn("a scheduled run could not start", { workflowId: due.workflowId, nodeId: due.nodeId, scheduledFor: tick, error: messageOf(error) });
      }
    }
  }

  /**
   * Arms the schedule nodes of active workflows that have no stored next tick for their current config (added or
   * changed by a save after the workflow was switched on). A changed one is moved by compare-and-set, so two
   * processes syncing together arm it once.
   */
  private async sync(now: number): Promise<void> {
    const [activations, states] = await Promise.all([this.deps.table.activations(), this.deps.table.states()]);
    const stateOf = new Map(states.map((s) => [`${s.workflowId}\n${s.nodeId}`, s]));
    for (const activation of activations) {
      const stored = await this.deps.workflows.get(activation.workflowId);
      if (!stored || activation.activatedAt < stored.createdAt) continue;
      for (const node of this.deps.triggers.triggerNodes(activation.workflowId, stored)) {
        if (node.kind !== "schedule") continue;
        const key = scheduleKey(node.config);
        const state = stateOf.get(`${activation.workflowId}\n${node.nodeId}`);
        if (state?.scheduleKey === key && state.nextFireAt !== undefined) continue;
        if (state?.nextFireAt !== undefined) await this.deps.table.claimTick(activation.workflowId, node.nodeId, state.nextFireAt, node.schedule.next(now), key);
        else if (state?.scheduleKey !== key) await this.deps.table.armSchedule(activation.workflowId, node.nodeId, key, node.schedule.next(now), now);
      }
    }
  }
}
