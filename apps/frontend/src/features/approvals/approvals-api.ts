import { z } from "zod";
import { ApprovalDecisionSchema, ApprovalRequestSchema, type ApprovalDecision } from "@weft/types";
import { ApiClient } from "../../shared/api/client.ts";
import { ok } from "../../shared/api/errors.ts";

/** An approval as `GET /api/approvals` lists it. */
export const ApprovalViewSchema = z.object({
  id: z.string(),
  runId: z.string(),
  nodeId: z.string(),
  workflowId: z.string(),
  request: ApprovalRequestSchema,
  status: z.enum(["pending", "decided", "closed"]),
  deadline: z.number().optional(),
  createdAt: z.number(),
  decision: ApprovalDecisionSchema.optional(),
  decidedBy: z.string().optional(),
  decidedAt: z.number().optional(),
  comment: z.string().optional(),
  canDecide: z.boolean(),
});
export type ApprovalView = z.infer<typeof ApprovalViewSchema>;

/** The approvals' routes the inbox uses: the pending ones the user may decide, and a decision. */
class ApprovalsApi extends ApiClient {
  async list() {
    const r = await this.request("GET", "/api/approvals", z.object({ approvals: z.array(ApprovalViewSchema) }));
    return r.ok ? ok(r.value.approvals) : r;
  }

  async decide(id: string, decision: ApprovalDecision, comment: string) {
    return this.request("POST", `/api/approvals/${encodeURIComponent(id)}/decision`, ApprovalViewSchema, { decision, ...(comment.trim() !== "" ? { comment: comment.trim() } : {}) });
  }
}

export const approvalsApi = new ApprovalsApi();
