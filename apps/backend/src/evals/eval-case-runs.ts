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

/** Case runs are ordinary runs (on the workers in queue mode): started through the run service, awaited on the event hub. */
export function caseRunPort(deps: { runs: RunService; storage: RunsStorage; hub: EventHub; usage: UsageRepository }): CaseRunPort {
  const finishedOf = async (record: RunRecord): Promise<FinishedRun> => {
    const observations = await deps.storage.observations.listByRun(record.id);
    return {
      status: record.status,
      outputs: record.outputs,
      ...(record.error ? { error: `${record.error.code}: ${record.error.message}` } : {}),
      durationMs: record.durationMs ?? (record.finishedAt ?? Date.now()) - (record.startedAt ?? record.createdAt),
      steps: observations.filter((o) => o.cached !== true).length,
      ...(record.workflowVersion !== undefined ? { workflowVersion: record.workflowVersion } : {}),
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
            if (!done) timer = setTimeout(recheck, RECHECK_MS);
          }, reject);
        };
        const unsubscribe = deps.hub.subscribe(runId, (events) => {
          if (events.some((e) => ENDING_EVENTS.has(e.type))) void check().catch(reject);
        });
        recheck();
      });
    },
    async usage(runId) {
      const [row] = await deps.usage.report({ runId });
      if (!row || row.calls === 0) return { tokens: 0, costUsd: 0 };
      return { tokens: row.totalTokens, costUsd: row.unpricedCalls > 0 ? null : (row.costUsd ?? 0) };
    },
  };
}
