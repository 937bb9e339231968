import { APPROVAL_DECISIONS, APPROVAL_ROLES, suspendRun, type ApprovalRequest } from "@weft/types";
import { defineNode } from "../define-node.ts";

/**
 * Pauses its run until someone with the right role decides (the inbox, `POST /api/approvals/:id/decision`, or a
 * signed link), or the timeout takes the default. It never completes here: it returns the request (`suspendRun`),
 * the run ends `waiting`, and the execution that resumes it hands this node the decision as its recorded outputs —
 * the data on `approved` or `rejected` only, so only that branch runs, and `decision` with who decided and when.
 */
export const coreApproval = defineNode(
  {
    type: "core:approval",
    title: "Approval",
    description:
      "Pauses the run until a user decides (Approvals inbox, API, or a signed link). The data goes on to `approved` or `rejected`, so only that branch runs; `decision` says what was decided, by whom and when. Nothing is held while it waits; after the timeout the default decision is taken.",
    category: "interface",
    inputs: [{ id: "data", type: "any", label: "Data", description: "What the approver reviews; passed on to the chosen branch." }],
    outputs: [
      { id: "approved", type: "any", label: "Approved", description: "The data, when approved." },
      { id: "rejected", type: "any", label: "Rejected", description: "The data, when rejected (or when the timeout takes rejection)." },
      { id: "decision", type: "json", label: "Decision", description: "{ decision, decidedBy, decidedAt, comment? }; decidedBy is a user id, `link:<user id>` or `timeout`." },
    ],
    config: [
      { id: "question", kind: "multiline", required: true, label: "Question", description: "What the approver is asked, e.g. `Send this refund?`." },
      { id: "role", kind: "select", options: [...APPROVAL_ROLES], default: "editor", label: "Who may decide", description: "editor: editors and owners; owner: owners only." },
      { id: "timeoutSeconds", kind: "integer", min: 1, max: 31_536_000, label: "Timeout (s)", description: "After this long the default decision is taken; empty: wait for ever." },
      { id: "defaultDecision", kind: "select", options: [...APPROVAL_DECISIONS], default: "rejected", label: "On timeout", description: "The decision the timeout takes." },
    ],
  },
  (inputs, ctx) => {
    const c = ctx.config;
    const request: ApprovalRequest = {
      question: String(c.question),
      data: inputs.data ?? null,
      role: c.role === "owner" ? "owner" : "editor",
      defaultDecision: c.defaultDecision === "approved" ? "approved" : "rejected",
      ...(typeof c.timeoutSeconds === "number" ? { timeoutSeconds: c.timeoutSeconds } : {}),
    };
    return suspendRun(request);
  },
);
