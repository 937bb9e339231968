import type { EventHub } from "../events/event-hub.ts";
import type { RunRecord } from "../events/run-repository.ts";
import type { RunService } from "../runs/run-service.ts";
import type { RunsStorage } from "../runs/runs-storage.ts";
import type { UsageRepository } from "../usage/usage-repository.ts";
import type { CaseRunPort, FinishedRun } from "./eval-runner.ts";

/** A run can end without an ending event reaching this process (a lost announcement): the runs followed are read again this often. */
const RECHECK_MS = 1_000;
/**
 * An ending event can be published a flush before the run's final status is stored (the journal flushes when its
 * batch fills, and the executor records the status after the engine returns): such a run is read again after this,
 * rather than a whole RECHECK_MS later.
 */
const AFTER_ENDING_MS = 20;

interface Waiter {
  resolve(run: FinishedRun): void;
  reject(error: unknown): void;
  unsubscribe(): void;
}

/**
 * Follows many runs to their ends for an eval run: each run's ending on the event hub (`subscribeEnded`: in queue mode
 * the announcement says it, nothing is read, `../queue/event-relay.ts`), then the ended runs' records, step counts and usage read in
 * bulk, one query each for every run that ended meanwhile, rather than a few round trips per case.
 */
class RunEndings {
  private readonly waiting = new Map<string, Waiter>();
  /** Runs whose ending was seen (or that may have ended): read at the next pass. */
  private readonly due = new Set<string>();
  private reading = false;
  private sweep: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly deps: { storage: RunsStorage; hub: EventHub; usage: UsageRepository }) {}

  finished(runId: string): Promise<FinishedRun> {
    return new Promise<FinishedRun>((resolve, reject) => {
      // That it ended is enough (its record is read below): in queue mode nothing is read per case for it.
      const unsubscribe = this.deps.hub.subscribeEnded(runId, () => this.mark([runId]));
      this.waiting.set(runId, { resolve, reject, unsubscribe });
      // A run that ended before this subscription (or whose ending was lost) is found by the sweep.
      this.sweep ??= setInterval(() => this.mark([...this.waiting.keys()]), RECHECK_MS);
    });
  }

  private mark(runIds: readonly string[]): void {
    for (const id of runIds) if (this.waiting.has(id)) this.due.add(id);
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      while (this.due.size > 0) {
        const ids = [...this.due];
        this.due.clear();
        try {
          const ended = await this.deps.storage.runs.listEnded(ids);
          const found = new Set(ended.map((r) => r.id));
          const late = ids.filter((id) => !found.has(id));
          if (late.length > 0) setTimeout(() => this.mark(late), AFTER_ENDING_MS);
          if (ended.length > 0) await this.settle(ended);
        } catch (error) {
          for (const id of ids) this.settleOne(id, (w) => w.reject(error));
        }
      }
    } finally {
      this.reading = false;
    }
  }

  /** The ended runs' steps and usage, one query each for all of them. */
  private async settle(records: RunRecord[]): Promise<void> {
    const ids = records.filter((r) => this.waiting.has(r.id)).map((r) => r.id);
    if (ids.length === 0) return;
    const [steps, usage] = await Promise.all([this.deps.storage.observations.countExecuted(ids), this.deps.usage.totalsByRun(ids)]);
    for (const record of records) {
      const used = usage.get(record.id) ?? { tokens: 0, costUsd: 0 };
      this.settleOne(record.id, (w) => w.resolve(finishedOf(record, steps.get(record.id) ?? 0, used)));
    }
  }

  private settleOne(runId: string, settle: (waiter: Waiter) => void): void {
    const waiter = this.waiting.get(runId);
    if (!waiter) return;
    this.waiting.delete(runId);
    waiter.unsubscribe();
    settle(waiter);
    if (this.waiting.size === 0 && this.sweep) {
      clearInterval(this.sweep);
      this.sweep = undefined;
    }
  }
}

function finishedOf(record: RunRecord, steps: number, usage: { tokens: number; costUsd: number | null }): FinishedRun {
  return {
    status: record.status,
    outputs: record.outputs,
    ...(record.error ? { error: `${record.error.code}: ${record.error.message}` } : {}),
    durationMs: record.durationMs ?? (record.finishedAt ?? Date.now()) - (record.startedAt ?? record.createdAt),
    steps,
    ...(record.workflowVersion !== undefined ? { workflowVersion: record.workflowVersion } : {}),
    ...usage,
  };
}

/**
 * Case runs are ordinary runs (on the workers in queue mode): started through the run service, followed on the event
 * hub. In queue mode they are started in batches, one job per batch (`RunService.startBatch`), so a case costs the
 * API process its record and a share of one job, not a job and its round trips of its own.
 */
export function caseRunPort(deps: { runs: RunService; storage: RunsStorage; hub: EventHub; usage: UsageRepository }): CaseRunPort {
  const endings = new RunEndings(deps);
  return {
    batched: deps.runs.mode === "queue",
    async start(workflow, inputs, createdBy) {
      const started = await deps.runs.start({ workflowId: workflow.workflowId, inputs, ...(workflow.draft ? { draft: workflow.draft } : {}), ...(createdBy !== undefined ? { createdBy } : {}) });
      return started.runId;
    },
    startBatch(workflow, inputs, createdBy) {
      return deps.runs.startBatch(
        inputs.map((one) => ({ workflowId: workflow.workflowId, inputs: one, ...(workflow.draft ? { draft: workflow.draft } : {}), ...(createdBy !== undefined ? { createdBy } : {}) })),
      );
    },
    finished: (runId) => endings.finished(runId),
  };
}
