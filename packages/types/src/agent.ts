import { z } from "zod";
import { ToolCallSchema } from "./llm.ts";
import { NodeErrorSchema } from "./run.ts";
import { PermissionRuleSchema } from "./toolhost.ts";
import { ApprovalRequestSchema } from "./approval.ts";

export const AgentProfileSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  persona: z.string().default(""),
  deliberationWorkflowId: z.string().min(1),
  /** Node types the agent may call as atomic tools. */
  tools: z.array(z.string()).default([]),
  /** Workflow ids the agent may call as skills. */
  skills: z.array(z.string()).default([]),
  protocol: z.enum(["action-xml", "openai-tools"]).default("action-xml"),
  maxSteps: z.number().int().positive().max(200).default(8),
  subscribedEvents: z.array(z.string()).default([]),
  initialPrivateState: z.record(z.string(), z.unknown()).default({}),
  llmProfileId: z.string().optional(),
  /** This agent's permission rules for its host tools: they can only narrow the owner's settings rules (deny, or ask where those allow), never allow more. */
  permissions: z.array(PermissionRuleSchema).optional(),
  /**
   * Offer the built-in `ask_approval` tool (its documentation goes into every prompt, so only agents that need it): the
   * conversation waits, stored, until someone decides in the approvals inbox. Absent: off.
   */
  askApproval: z.boolean().optional(),
  revision: z.number().int().min(0).default(0),
});
export type AgentProfile = z.infer<typeof AgentProfileSchema>;
export type AgentProfileInput = z.input<typeof AgentProfileSchema>;

/**
 * Where an agent's conversation stands. `running` and `waiting_permission` are transient (a loop
 * is under way); the others are where a loop stops: `waiting_user` until the user answers, `waiting_approval`
 * until an approval (`ask_approval`) is decided,
 * `completed` with an answer, `stuck` after repeated mistakes, `max_steps` when the step limit ran
 * out, `cut_off` when the answer stayed cut off at the model's output limit (with the partial answer),
 * `cancelled`, `failed` (the deliberation itself failed, e.g. the LLM was unreachable), or `budget_exceeded` (an LLM call
 * was refused because it would have passed a token or cost budget).
 */
export const AGENT_STATUSES = [
  "idle",
  "running",
  "waiting_permission",
  "waiting_user",
  "waiting_approval",
  "completed",
  "stuck",
  "max_steps",
  "cut_off",
  "cancelled",
  "failed",
  "budget_exceeded",
] as const;
export const AgentStatusSchema = z.enum(AGENT_STATUSES);
export type AgentStatus = z.infer<typeof AgentStatusSchema>;

/** How one action in the LLM output was read: a validated call, or a refusal the model gets back. */
export const AgentParseOutcomeSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("call"),
    /** Node type or skill workflow id. */
    toolId: z.string(),
    toolKind: z.enum(["tool", "skill"]),
    /** The LLM-safe name the model used. */
    toolName: z.string(),
    params: z.record(z.string(), z.unknown()),
    notes: z.array(z.string()),
  }),
  z.object({
    kind: z.literal("error"),
    /** TRUNCATED, MALFORMED_XML, UNKNOWN_TOOL, INVALID_PARAMS, MULTIPLE_TOOLS, EMPTY_ACTION, EMPTY_REPLY. */
    code: z.string(),
    message: z.string(),
    toolId: z.string().optional(),
    line: z.number().int().optional(),
    column: z.number().int().optional(),
  }),
]);
export type AgentParseOutcome = z.infer<typeof AgentParseOutcomeSchema>;

export const AGENT_ACTION_STATUSES = ["completed", "failed", "cancelled", "rejected", "waiting_user", "waiting_approval", "skipped"] as const;

/** One action of a step: what was asked, the run that did it, and what the model was told. */
export const AgentActionTraceSchema = z.object({
  /** The native tool call id (`openai-tools`); absent for an `<ACTION>` block. */
  callId: z.string().optional(),
  parse: AgentParseOutcomeSchema,
  /** `rejected`: refused before running; `skipped`: not run because an earlier call waits for the user. */
  status: z.enum(AGENT_ACTION_STATUSES),
  ok: z.boolean(),
  /** The action's run (single-node workflow or skill); absent when nothing ran. */
  runId: z.string().optional(),
  error: NodeErrorSchema.optional(),
  /** The Observation text the model got for this action (empty while waiting for the user). */
  observation: z.string(),
  /** Where the full result is kept when the observation shows a preview. */
  fullResultRef: z.string().optional(),
  /** Permission questions the action raised and how they were answered. */
  permissions: z.array(z.object({ requestId: z.string(), tool: z.string(), target: z.string().optional(), answer: z.enum(["once", "always", "reject"]) })).default([]),
  startedAt: z.number(),
  durationMs: z.number().nonnegative(),
});
export type AgentActionTrace = z.infer<typeof AgentActionTraceSchema>;

/**
 * One deliberation step of an agent, as recorded (seed 004 §3.3 "logging"): the deliberation run,
 * the raw LLM output, how it was read, each action's run and observation, and the status after it.
 */
export const AgentStepTraceSchema = z.object({
  /** Counts the conversation's steps from 1. */
  step: z.number().int().positive(),
  agentId: z.string(),
  conversationId: z.string(),
  protocol: z.enum(["action-xml", "openai-tools"]),
  startedAt: z.number(),
  durationMs: z.number().nonnegative(),
  deliberation: z.object({
    runId: z.string(),
    status: z.enum(["completed", "failed", "cancelled"]),
    durationMs: z.number().nonnegative(),
    error: NodeErrorSchema.optional(),
  }),
  /** The LLM's raw output (what was streamed before a failure, when it failed). */
  output: z.object({ text: z.string(), reasoning: z.string().optional(), toolCalls: z.array(ToolCallSchema), /** `length`: cut off at the output limit. */ finishReason: z.string().optional() }),
  /** The reply part of the output: without the action block and reasoning. */
  responseText: z.string(),
  /** What the parser saw but deliberately did not execute, or repaired. */
  notes: z.array(z.string()).default([]),
  actions: z.array(AgentActionTraceSchema),
  /** Mistakes in a row so far, and how many of them were the same failing action. */
  mistakes: z.object({ consecutive: z.number().int().nonnegative(), identical: z.number().int().nonnegative() }),
  /** The agent's status after the step; `running` when the loop went on. */
  status: AgentStatusSchema,
  reason: z.string().optional(),
});
export type AgentStepTrace = z.infer<typeof AgentStepTraceSchema>;
export type AgentStepTraceInput = z.input<typeof AgentStepTraceSchema>;

/** What an agent needs to continue a conversation later (after a restart too). */
export const AgentSessionStateSchema = z.object({
  agentId: z.string(),
  conversationId: z.string(),
  status: AgentStatusSchema,
  reason: z.string().optional(),
  /** Steps taken in the whole conversation; the next one gets this number plus one. */
  steps: z.number().int().nonnegative(),
  /** The next `seq` of the conversation's event stream. */
  nextEventSeq: z.number().int().nonnegative(),
  privateState: z.record(z.string(), z.unknown()),
  /** Set while the agent waits for the user's answer to an `ask_user` call. */
  pendingQuestion: z
    .object({
      question: z.string(),
      step: z.number().int().positive(),
      callId: z.string().optional(),
      toolName: z.string(),
      /** Set for an `ask_approval` call (status `waiting_approval`): what is asked; an approval's decision answers it, not a message. */
      approval: ApprovalRequestSchema.optional(),
    })
    .optional(),
  updatedAt: z.number(),
});
export type AgentSessionState = z.infer<typeof AgentSessionStateSchema>;

/**
 * Where an agent keeps what it needs to continue a conversation (private state, pending question,
 * step and event counters): in memory (`InMemoryAgentStateStore`), or in the backend's database.
 */
export interface AgentStateStore {
  load(conversationId: string): Promise<AgentSessionState | undefined>;
  save(state: AgentSessionState): Promise<void>;
}
