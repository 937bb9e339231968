import { z } from "zod";
import { AgentProfileSchema, AgentStepTraceSchema, ConversationMessageSchema, ConversationSchema, CredentialSummarySchema, SceneSchema, WorkflowSchema } from "@weft/types";

/**
 * Small answer schemas for tests and benches that read only a part of an answer (and for code
 * outside the backend's package, which cannot import zod itself).
 */

/** POST /api/workflows/:id/runs, a rerun: the new run's id. */
export const StartedRunSchema = z.object({ runId: z.string() });
/** GET /api/runs/:id, whatever state the run is in: its status (and duration once it ended). */
export const RunStatusSchema = z.object({ run: z.object({ status: z.string(), durationMs: z.number().optional() }) });
/** GET /api/runs: the runs' ids and statuses. */
export const RunListSchema = z.object({ runs: z.array(z.object({ id: z.string(), status: z.string() })) });
/** GET /api/approvals: which approval waits, for which run. */
export const ApprovalListSchema = z.object({ approvals: z.array(z.object({ id: z.string(), runId: z.string() })) });
/** GET /api/workflows/:id. */
export const WorkflowAnswerSchema = z.object({ workflow: WorkflowSchema });
/** POST /api/llm-profiles and friends: the profile's id. */
export const ProfileIdAnswerSchema = z.object({ profile: z.object({ id: z.string() }) });
/** A page of a run's events, as far as counting them goes. */
export const SeqPageSchema = z.object({ events: z.array(z.object({ seq: z.number() })), hasMore: z.boolean() });
/** GET /api/scenes/:id/timeline, as far as a poller goes: where to read on. */
export const CursorSchema = z.object({ cursor: z.string() });
/** POST /api/scenes/:id/replay, as far as a bench reports it. */
export const ReplaySummarySchema = z.object({ matches: z.unknown(), differences: z.unknown() }).partial();
/** GET /api/conversations/:id: the conversation, its messages and steps, and the agent's state in it (its questions kept whole). */
export const ConversationAnswerSchema = z.object({
  conversation: ConversationSchema,
  messages: z.array(ConversationMessageSchema),
  steps: z.array(AgentStepTraceSchema),
  agent: z.object({ status: z.string(), running: z.boolean(), pendingPermissions: z.array(z.looseObject({})).optional() }).optional(),
});
/** POST /api/agents/:id/messages: the conversation the message went to. */
export const SentMessageSchema = z.object({ conversationId: z.string() });
/** GET /api/agents/:id. */
export const AgentAnswerSchema = z.object({ agent: AgentProfileSchema });
/** GET /api/scenes/:id. */
export const SceneAnswerSchema = z.object({ scene: SceneSchema });
/** GET /api/scenes. */
export const SceneListAnswerSchema = z.object({ scenes: z.array(SceneSchema) });
/** GET /api/credentials: the summaries, never a secret. */
export const CredentialListSchema = z.object({ credentials: z.array(CredentialSummarySchema) });
