import type { EventHub } from "../events/event-hub.ts";
import type { RunRecord } from "../events/run-repository.ts";
import type { RunService } from "../runs/run-service.ts";
import type { RunsStorage } from "../runs/runs-storage.ts";
import type { UsageRepository } from "../usage/usage-repository.ts";
import type { CaseRunPort, FinishedRun } from "./eval-runner.ts";

const ENDED = new Set(["completed", "failed", "cancelled", "interrupted", "budget_exceeded"]);
const ENDING_EVENTS = new Set(["run.completed", "run.failed", "run.cancelled"]);
/** A run can end without an ending event (interrupted, refused by a budget): its record is read again this often. */
const RECHECK_MS = 1_000;
/**
 * An ending event can be published a flush before the run's final status is stored (the journal flushes when its
 * batch fills, and the executor records the status after the engine returns): then the record is read again after
 * this, doubling up to RECHECK_MS, rather than a whole RECHECK_MS later (~4% of a 1,000-case suite's cases waited so).
 */
const AFTER_ENDING_MS = 20;

/** Case runs are ordinary runs (on the workers in queue mode): started through the run service, awaited on the event hub. */
export function caseRunPort(deps: { runs: RunService; storage: RunsStorage; hub: EventHub; usage: UsageRepository }): CaseRunPort {
  const usageOf = async (runId: string): Promise<{ tokens: number; costUsd: number | null }> => {
    const [row] = await deps.usage.report({ runId });
    if (!row || row.calls === 0) return { tokens: 0, costUsd: 0 };
    return { tokens: row.totalTokens, costUsd: row.unpricedCalls > 0 ? null : (row.costUsd ?? 0) };
  };
  const finishedOf = async (record: RunRecord): Promise<FinishedRun> => {
    // Both at once: in queue mode each is a PostgreSQL round trip, for every case.
    const [observations, usage] = await Promise.all([deps.storage.observations.listByRun(record.id), usageOf(record.id)]);
    return {
      status: record.status,
      outputs: record.outputs,
      ...(record.error ? { error: `${record.error.code}: ${record.error.message}` } : {}),
      durationMs: record.durationMs ?? (record.finishedAt ?? Date.now()) - (record.startedAt ?? record.createdAt),
      steps: observations.filter((o) => o.cached !== true).length,
      ...(record.workflowVersion !== undefined ? { workflowVersion: record.workflowVersion } : {}),
      ...usage,
    };
  };
  return {
    async start(workflow, inputs, createdBy) {
      const started = await deps.runs.start({ workflowId: workflow.workflowId, inputs, ...(workflow.draft ? { draft: workflow.draft } : {}), ...(createdBy !== undefined ? { createdBy } : {}) });
      return started.runId;
    },
    finished(runId) {
      return new Promise<FinishedRun>((resolve, reject) => {
        let done = false;
        let timer: ReturnType<typeof setTimeout> | undefined;
        let delay = RECHECK_MS;
        const check = async () => {
          if (done) return;
          const record = await deps.storage.runs.get(runId);
          if (done || !record || !ENDED.has(record.status)) return;
          done = true;
          unsubscribe();
          if (timer) clearTimeout(timer);
          resolve(await finishedOf(record));
        };
        const recheck = () => {
          check().then(() => {
            if (done) return;
            timer = setTimeout(recheck, delay);
            delay = Math.min(delay * 2, RECHECK_MS);
          }, reject);
        };
        const unsubscribe = deps.hub.subscribe(runId, (events) => {
          if (!events.some((e) => ENDING_EVENTS.has(e.type))) return;
          check().then(() => {
            if (done) return;
            // Ended, but its status is not stored yet: look again soon.
            clearTimeout(timer);
            timer = setTimeout(recheck, AFTER_ENDING_MS);
            delay = AFTER_ENDING_MS * 2;
          }, reject);
        });
        recheck();
      });
    },
  };
}
