/**
 * What can go wrong around an agent, as values callers branch on. Mistakes of the model (bad
 * actions, failing tools) are not errors: they become Observations and, when repeated, the
 * `stuck` status.
 */
export const AGENT_ERROR_CODES = [
  /** The profile does not pass the AgentProfile schema. */
  "INVALID_PROFILE",
  /** `tools` names a node type the catalog does not have. */
  "UNKNOWN_TOOL_TYPE",
  /** `skills` names a workflow the source does not have. */
  "UNKNOWN_SKILL",
  /** A skill workflow has no interface (no `core:workflow-input` / `core:workflow-output`). */
  "NOT_A_SKILL",
  "DELIBERATION_WORKFLOW_NOT_FOUND",
  /** The deliberation workflow lacks the interface the agent loop talks to. */
  "INVALID_DELIBERATION_WORKFLOW",
  /** The workflow source failed (e.g. a file there is not a valid workflow). */
  "WORKFLOW_SOURCE_FAILED",
  /** The LLM call of a deliberation failed (unreachable, auth, rate limit…): `details.llmCode` says which. */
  "LLM_FAILED",
  /** The deliberation workflow failed for another reason. */
  "DELIBERATION_FAILED",
  /** The model's answer stayed cut off at its output limit (finish_reason `length`) after being asked to continue. */
  "ANSWER_CUT_OFF",
  /** A loop is already running in this conversation. */
  "BUSY",
  /** The agent waits for the user's answer: give it with `sendMessage`. */
  "WAITING_FOR_USER",
  /** The agent waits for an approval (`ask_approval`): a decision in the approvals inbox continues it. */
  "WAITING_FOR_APPROVAL",
  /** A decision for an approval the conversation does not wait for (answered before). */
  "NOT_WAITING_FOR_APPROVAL",
  "UNKNOWN_PERMISSION_REQUEST",
  /** A permission answer that is not once, always or reject. */
  "INVALID_PERMISSION_ANSWER",
  /** The conversation log could not be read or written. */
  "CONVERSATION_FAILED",
] as const;
export type AgentErrorCode = (typeof AGENT_ERROR_CODES)[number];

export interface AgentError {
  code: AgentErrorCode;
  message: string;
  /** How to fix it. */
  hint?: string;
  details?: Record<string, unknown>;
}

export type AgentResult<T> = { ok: true; value: T } | { ok: false; error: AgentError };

export function agentError(code: AgentErrorCode, message: string, hint?: string, details?: Record<string, unknown>): AgentError {
  return { code, message, ...(hint ? { hint } : {}), ...(details ? { details } : {}) };
}

export const ok = <T>(value: T): AgentResult<T> => ({ ok: true, value });
export const fail = <T = never>(error: AgentError): AgentResult<T> => ({ ok: false, error });
