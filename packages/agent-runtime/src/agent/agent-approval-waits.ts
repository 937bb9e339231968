import { messageOf, type ApprovalRequest } from "@weft/types";
import type { AgentInstanceOptions } from "./agent-instance-options.ts";
import { agentError, type AgentError } from "./errors.ts";
import type { PendingQuestion } from "./step-actions.ts";

/** What an `ask_approval` call waits for (`waiting_approval`): its question, request, step and call id. */
export interface PendingApproval {
  question: string;
  request: ApprovalRequest;
  step: number;
  callId?: string;
}

/** The approval the pending question waits for, when it is an `ask_approval` call's (not `ask_user`'s). */
export function pendingApprovalOf(q: (PendingQuestion & { step: number }) | undefined): PendingApproval | undefined {
  return q?.approval ? { question: q.question, request: q.approval, step: q.step, ...(q.callId !== undefined ? { callId: q.callId } : {}) } : undefined;
}

/**
 * Hands the approval a loop ended waiting on to the host that stores it (`onApprovalAsked`), before the session says
 * `waiting_approval`: undefined when stored (or nothing to store), else why the loop must end `failed` instead.
 */
export async function handOverApproval(q: (PendingQuestion & { step: number }) | undefined, onApprovalAsked: AgentInstanceOptions["onApprovalAsked"]): Promise<string | undefined> {
  if (!q?.approval || !onApprovalAsked) return undefined;
  try {
    await onApprovalAsked({ step: q.step, request: q.approval });
    return undefined;
  } catch (error) {
    return `The approval request could not be stored, so nobody could decide it: ${messageOf(error)}. Send a message to let the agent go on.`;
  }
}

/** Why a host without `approvals: true` answers an `ask_approval` call with an error observation. */
export const APPROVALS_UNAVAILABLE =
  "ask_approval is not available on this server: its agents run on queue-mode workers, where nothing could continue the conversation after the decision. Ask the user with ask_user instead, or go on without the approval if that is allowed.";

export function waitingForApproval(question: string): AgentError {
  return agentError("WAITING_FOR_APPROVAL", `The agent waits for an approval of: ${question}`, "Decide it in the approvals inbox (GET /api/approvals, POST /api/approvals/:id/decision).");
}

export function notWaitingForApproval(conversationId: string, step: number): AgentError {
  return agentError("NOT_WAITING_FOR_APPROVAL", `Conversation ${conversationId} does not wait for the approval asked in step ${step}.`, "Nothing to continue: it was answered before.");
}
