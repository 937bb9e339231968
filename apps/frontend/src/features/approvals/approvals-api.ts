import { z } from "zod";
import { ApprovalViewSchema, type ApprovalDecision } from "@weft/types";
import { ApiClient } from "../../shared/api/client.ts";
import { ok } from "../../shared/api/errors.ts";

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
