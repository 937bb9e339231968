import { randomUUID } from "node:crypto";
import type { RecordedNode } from "@weft/agent-runtime";
import { ApprovalRequestSchema, type ApprovalOutcome, type RunWait } from "@weft/types";
import type { RunWaits } from "../runs/run-waits.ts";
import type { ApprovalTable } from "./approval-table.ts";

/**
 * The executor's side of approvals, on whichever process executes the run (the API's, a queue worker's): a paused
 * run's requests stored as pending approvals (with their deadline), and a resumed run's decisions as the outputs its
 * approval nodes take — the data on the chosen output only, and `decision` with who decided and when.
 */
export class ApprovalWaits implements RunWaits {
  constructor(private readonly table: ApprovalTable) {}

  async record(runId: string, workflowId: string, waits: readonly RunWait[], at: number): Promise<void> {
    const rows = waits.map((w) => {
      const request = ApprovalRequestSchema.parse(w.request);
      return {
        id: randomUUID(),
        runId,
        subject: { kind: "run" as const },
        nodeId: w.nodeId,
        workflowId,
        request,
        createdAt: at,
        ...(request.timeoutSeconds !== undefined ? { deadline: at + request.timeoutSeconds * 1000 } : {}),
      };
    });
    await this.table.addPending(rows);
  }

  async close(runId: string, at: number): Promise<void> {
    await this.table.closePending(runId, at);
  }

  async decided(runId: string): Promise<Map<string, RecordedNode>> {
    const recorded = new Map<string, RecordedNode>();
    for (const a of await this.table.byRun(runId)) {
      if (a.status !== "decided" || a.decision === undefined) continue;
      const outcome: ApprovalOutcome = { decision: a.decision, decidedBy: a.decidedBy ?? "unknown", decidedAt: a.decidedAt ?? 0, ...(a.comment !== undefined ? { comment: a.comment } : {}) };
      recorded.set(a.nodeId, { status: "completed", inputs: { data: a.request.data }, outputs: { [a.decision]: a.request.data, decision: outcome } });
    }
    return recorded;
  }
}
