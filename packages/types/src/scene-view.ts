import { z } from "zod";
import { AgentStepTraceSchema } from "./agent.ts";
import { AgentTriggerSchema, SceneLogEntrySchema, SceneStatusReasonSchema, SceneStatusSchema } from "./scene.ts";
import { PermissionRequestSchema } from "./toolhost.ts";
import { JsonObjectSchema, WorldChangeSchema } from "./world.ts";

/** What an agent of a running scene is doing, as the scene view shows it. */
export const SCENE_AGENT_STATUSES = ["idle", "deliberating", "waiting_user", "waiting_permission"] as const;
export const SceneAgentStatusSchema = z.enum(SCENE_AGENT_STATUSES);
export type SceneAgentStatus = z.infer<typeof SceneAgentStatusSchema>;

export const SceneAgentViewSchema = z.object({
  instanceId: z.string(),
  profileId: z.string(),
  status: SceneAgentStatusSchema,
  /** The conversation of this agent in the scene's current session (its messages and step traces). */
  conversationId: z.string().optional(),
  /** What the agent asked the user (status `waiting_user`); answer it through the scene. */
  pendingQuestion: z.string().optional(),
  pendingPermissions: z.array(PermissionRequestSchema),
  /** The trigger being deliberated, null when the agent is free. */
  inFlight: AgentTriggerSchema.nullable(),
  /** Triggers waiting in the agent's mailbox, oldest first. */
  queue: z.array(AgentTriggerSchema),
  privateState: JsonObjectSchema,
});
export type SceneAgentView = z.infer<typeof SceneAgentViewSchema>;

/** `GET /api/scenes/:id/state`: a scene's live state (or its saved state when it is not loaded). */
export const SceneStateViewSchema = z.object({
  sceneId: z.string(),
  sessionId: z.string().optional(),
  status: SceneStatusSchema,
  reason: SceneStatusReasonSchema.optional(),
  /** Whether the scene is loaded in this server (running, paused, or stopped this session). */
  live: z.boolean(),
  budget: z.object({ limit: z.number().int(), used: z.number().int() }),
  agents: z.array(SceneAgentViewSchema),
  world: JsonObjectSchema,
  /** Recent world changes, oldest first. */
  worldChanges: z.array(WorldChangeSchema),
  /**
   * The last `seq` of the scene's event stream stored before this view was taken (-1: none yet):
   * subscribe to the scene id on `/ws` with `after: streamSeq` and no change is missed.
   */
  streamSeq: z.number().int().min(-1),
});
export type SceneStateView = z.infer<typeof SceneStateViewSchema>;

/** One deliberation step of an agent of the scene, with its deliberation run id (open it in the debugger). */
export const SceneStepViewSchema = z.object({ instanceId: z.string(), conversationId: z.string(), trace: AgentStepTraceSchema });
export type SceneStepView = z.infer<typeof SceneStepViewSchema>;

/** `GET /api/scenes/:id/timeline`: the session log from `fromSeq` and every agent's step traces. */
export const SceneTimelineSchema = z.object({
  entries: z.array(SceneLogEntrySchema),
  /** Pass as `fromSeq` to read on. */
  nextSeq: z.number().int().nonnegative(),
  steps: z.array(SceneStepViewSchema),
});
export type SceneTimeline = z.infer<typeof SceneTimelineSchema>;

/** `POST /api/scenes/:id/replay`: the states a replay from the record reached, next to the recorded ones. */
export const SceneReplayResultSchema = z.object({
  ok: z.boolean(),
  /** Replay states equal the recorded ones. */
  matches: z.boolean(),
  messages: z.number().int().nonnegative(),
  world: JsonObjectSchema,
  privateStates: z.record(z.string(), JsonObjectSchema),
  recorded: z.object({ world: JsonObjectSchema, privateStates: z.record(z.string(), JsonObjectSchema) }),
  divergences: z.array(z.string()),
  unused: z.record(z.string(), z.number().int()),
});
export type SceneReplayResult = z.infer<typeof SceneReplayResultSchema>;
