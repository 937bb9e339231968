import { ApprovalRequestSchema, type ApprovalOutcome, type ApprovalRequest } from "@weft/types";
import type { ManifestEntry } from "../action/index.ts";
import { formatObservation } from "../action/index.ts";

/**
 * The built-in pseudo-tool an agent calls to ask for an approval (next to `ask_user`): the loop ends `waiting_approval`
 * with the request kept in the saved session; the host stores it in its approvals inbox and, once decided, continues
 * the loop with the decision as the call's observation (`AgentInstance.answerApproval`).
 */
export const ASK_APPROVAL_ID = "ask_approval";

const PARAMS = {
  question: { type: "string", description: "What to approve, complete and self-contained (shown in the approvals inbox)." },
  data: { description: "Optional: the data the approver reviews (e.g. the e-mail to send, the amount)." },
  role: { type: "string", enum: ["editor", "owner"], description: "Optional: who may decide — editors and owners (default), or owners only." },
  timeoutSeconds: { type: "number", description: "Optional: seconds until defaultDecision is taken; absent: no timeout." },
  defaultDecision: { type: "string", enum: ["approved", "rejected"], description: "Optional: the decision the timeout takes (default rejected)." },
} as const;

export const ASK_APPROVAL_ENTRY: ManifestEntry = {
  id: ASK_APPROVAL_ID,
  kind: "tool",
  name: ASK_APPROVAL_ID,
  description:
    "Asks a person with the right role to approve or reject something before you do it, and waits for the decision (which may take hours). Use it before actions with consequences the user asked to be approved.",
  inputSchema: { type: "object", properties: PARAMS, required: ["question"], additionalProperties: false },
  params: [
    { name: "question", type: "string", required: true, description: PARAMS.question.description, multi: false },
    { name: "data", type: "any", required: false, description: PARAMS.data.description, multi: false },
    { name: "role", type: "string", required: false, description: PARAMS.role.description, options: ["editor", "owner"], multi: false },
    { name: "timeoutSeconds", type: "number", required: false, description: PARAMS.timeoutSeconds.description, multi: false },
    { name: "defaultDecision", type: "string", required: false, description: PARAMS.defaultDecision.description, options: ["approved", "rejected"], multi: false },
  ],
};

export function isAskApproval(call: { toolId: string; toolKind: "tool" | "skill" }): boolean {
  return call.toolKind === "tool" && call.toolId === ASK_APPROVAL_ID;
}

/** The request an `ask_approval` call makes, or what is wrong with its parameters (the observation the model gets). */
export function approvalRequestOf(params: Record<string, unknown>): { ok: true; request: ApprovalRequest } | { ok: false; problem: string } {
  const parsed = ApprovalRequestSchema.safeParse({ role: "editor", defaultDecision: "rejected", ...params, data: params.data ?? null });
  if (!parsed.success) return { ok: false, problem: parsed.error.issues.map((i) => `${i.path.join(".") || "(params)"}: ${i.message}`).join("; ") };
  if (parsed.data.question.trim() === "") return { ok: false, problem: "question: say what is to be approved" };
  return { ok: true, request: parsed.data };
}

/** The Observation an `ask_approval` call gets once decided: `approved` or `rejected`, who decided, when, the comment. */
export function approvalObservation(toolName: string, outcome: ApprovalOutcome): string {
  return formatObservation({ kind: "success", toolName, outputs: { ...outcome } }, { maxChars: Number.MAX_SAFE_INTEGER });
}
