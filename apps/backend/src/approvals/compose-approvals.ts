import type { Logger, SecretRedactor } from "@weft/types";
import type { AccountService } from "../accounts/account-service.ts";
import type { RunsStorage } from "../runs/runs-storage.ts";
import { loadMasterKey } from "../secrets/master-key.ts";
import type { StorageEngine } from "../storage/storage.ts";
import type { AgentApprovalAsk } from "./approval-service.ts";
import { createApprovals } from "./index.ts";

/** The server options approvals are built from (`ServerOptions`' fields of the same names). */
export interface ApprovalsOptions {
  dataDir: string;
  secret?: string;
  approvalSweepMs?: number;
}

/**
 * Approvals in an API process: stored when a run pauses and read when it resumes (by the runs' executor), answered
 * by API or link; `forAgents` is the inbox an agent's `ask_approval` goes to (embedded mode; queue-mode workers offer none).
 */
export function composeApprovals(
  options: ApprovalsOptions,
  deps: { storage: StorageEngine & RunsStorage; redactor: SecretRedactor; accounts: Pick<AccountService, "getUser">; maxBodyBytes: number; log: Logger },
) {
  const approvals = createApprovals({
    engine: deps.storage,
    storage: deps.storage,
    masterKey: loadMasterKey(options.dataDir, options.secret, deps.redactor),
    sweepMs: options.approvalSweepMs ?? 1000,
    maxBodyBytes: deps.maxBodyBytes,
    log: deps.log.child("approvals"),
    // An agent's observation of a decision names who decided.
    userName: async (userId: string) => {
      const user = await deps.accounts.getUser(userId);
      return `${user.name} (${user.username})`;
    },
  });
  const forAgents = { ask: (ask: AgentApprovalAsk) => approvals.service.requestForAgent(ask), close: (conversationId: string) => approvals.service.closeForAgent(conversationId) };
  return { ...approvals, forAgents };
}
