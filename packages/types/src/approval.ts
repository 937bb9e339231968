import { z } from "zod";

/**
 * A node that asks to pause its run (`core:approval`) returns `suspendRun(request)`: the engine stores nothing in
 * memory for it — the run ends its current execution `waiting` with the request in its result, and a later execution
 * of the same run hands the node its outputs as recorded (the decision). A symbol key, so no port id can collide.
 */
const SUSPEND = Symbol.for("weft.suspend");

export function suspendRun(request: Record<string, unknown>): Record<string, unknown> {
  // A node's outputs type (NodeValues); not imported, so this file stays below node-runtime.ts.
  return { [SUSPEND]: request } as unknown as Record<string, unknown>;
}

/** The request of a node's `suspendRun` result, or undefined for ordinary outputs. */
export function suspensionOf(value: unknown): Record<string, unknown> | undefined {
  return (value as { [SUSPEND]?: Record<string, unknown> } | null | undefined)?.[SUSPEND];
}

/** The decisions of `core:approval`: each is one of its outputs, so only the chosen branch runs. */
export const APPROVAL_DECISIONS = ["approved", "rejected"] as const;
export const ApprovalDecisionSchema = z.enum(APPROVAL_DECISIONS);
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

/** Who may answer: editors and owners, or only owners. */
export const APPROVAL_ROLES = ["editor", "owner"] as const;
export const ApprovalRoleSchema = z.enum(APPROVAL_ROLES);

/** What `core:approval` asks (its suspension request, as stored with the approval). */
export const ApprovalRequestSchema = z.object({
  question: z.string(),
  /** The data to review (the node's `data` input). */
  data: z.unknown(),
  role: ApprovalRoleSchema,
  /** Seconds from the request until the default decision is taken; absent: no timeout. */
  timeoutSeconds: z.number().positive().optional(),
  defaultDecision: ApprovalDecisionSchema,
});
export type ApprovalRequest = z.infer<typeof ApprovalRequestSchema>;

/** The `decision` output of a decided approval node: what was decided, by whom, when. */
export const ApprovalOutcomeSchema = z.object({
  decision: ApprovalDecisionSchema,
  /** A user id; `link:<user id>` for a signed link that user made; `mcp:<user id>` for that user's answer in an MCP client (elicitation); `timeout` when the deadline decided. */
  decidedBy: z.string(),
  /** The deciding user as people read them (`Name (username)`), where known: an agent's observation names who decided. */
  decidedByName: z.string().optional(),
  decidedAt: z.number(),
  comment: z.string().optional(),
});
export type ApprovalOutcome = z.infer<typeof ApprovalOutcomeSchema>;

/** A node a waiting run waits on, with what it asked. */
export const RunWaitSchema = z.object({ nodeId: z.string(), request: z.record(z.string(), z.unknown()) });
export type RunWait = z.infer<typeof RunWaitSchema>;

/** An approval as the API shows it (`GET /api/approvals`): its request, its state and, once decided, the decision. */
export const ApprovalViewSchema = z.object({
  id: z.string(),
  /** The run id; for an agent's approval (`subject.kind` agent), its conversation id. */
  runId: z.string(),
  /** What waits: a run's `core:approval` node, or an agent's conversation at its `ask_approval` step. */
  subject: z.discriminatedUnion("kind", [z.object({ kind: z.literal("run") }), z.object({ kind: z.literal("agent"), conversationId: z.string(), agentId: z.string(), step: z.number().int() })]),
  nodeId: z.string(),
  /** The workflow id; for an agent's approval, the agent id. */
  workflowId: z.string(),
  request: ApprovalRequestSchema,
  /** `closed`: its run was cancelled while it waited. */
  status: z.enum(["pending", "decided", "closed"]),
  deadline: z.number().optional(),
  createdAt: z.number(),
  decision: ApprovalDecisionSchema.optional(),
  decidedBy: z.string().optional(),
  decidedAt: z.number().optional(),
  comment: z.string().optional(),
  /** Whether the caller may decide it (their role against the node's). */
  canDecide: z.boolean(),
});
export type ApprovalView = z.infer<typeof ApprovalViewSchema>;
