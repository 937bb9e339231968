import type { Logger } from "@weft/types";
import type { RunService } from "../runs/run-service.ts";
import type { RunsStorage } from "../runs/runs-storage.ts";
import type { StorageEngine } from "../storage/storage.ts";
import { ApprovalLinks, deriveLinkKey } from "./approval-link.ts";
import { ApprovalService } from "./approval-service.ts";
import { ApprovalSweeper } from "./approval-sweeper.ts";
import { ApprovalTable } from "./approval-table.ts";
import { approvalsApi } from "./approvals-api.ts";
import { ApprovalWaits } from "./approval-waits.ts";

export { APPROVAL_MIGRATIONS } from "./approval-migrations.ts";
export { APPROVALS_ROUTES } from "./approvals-api.ts";
export type { AgentApprovalAsk, AgentApprovalResumer } from "./approval-service.ts";

/** The executor's side alone (a queue worker's: it stores pauses and reads decisions, it answers nothing). */
export function approvalWaits(engine: StorageEngine): ApprovalWaits {
  return new ApprovalWaits(new ApprovalTable(engine));
}

export interface ApprovalsDeps {
  engine: StorageEngine;
  storage: RunsStorage;
  /** The installation's master key: signed links are keyed by a key derived from it. */
  masterKey: Buffer;
  /** How often this process sweeps deadlines and unresumed decisions (ms). */
  sweepMs: number;
  maxBodyBytes: number;
  log: Logger;
  /** A user's name as people read it (an agent's observation names who decided). */
  userName?: (userId: string) => Promise<string | undefined>;
}

/**
 * Approvals, in two steps: `createApprovals` before the runs (their executor stores and reads pauses through
 * `waits`), then `connect(runs)` once the run service exists, which starts this process's sweep.
 */
export function createApprovals(deps: ApprovalsDeps) {
  const table = new ApprovalTable(deps.engine);
  const service = new ApprovalService({ table, storage: deps.storage, links: new ApprovalLinks(deriveLinkKey(deps.masterKey)), log: deps.log, ...(deps.userName ? { userName: deps.userName } : {}) });
  const sweeper = new ApprovalSweeper(() => service.sweep(), deps.sweepMs, deps.log);
  return {
    service,
    waits: new ApprovalWaits(table),
    api: approvalsApi(service, deps.maxBodyBytes),
    connect(runs: RunService): void {
      service.attachRuns(runs);
      sweeper.start();
    },
    stop: () => sweeper.stop(),
  };
}
