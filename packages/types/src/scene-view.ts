import { z } from "zod";
import { AgentStepTraceSchema } from "./agent.ts";
import { AgentTriggerSchema, SceneLogEntrySchema, SceneStatusReasonSchema, SceneStatusSchema } from "./scene.ts";
import { PermissionRequestSchema } from "./toolhost.ts";
import { JsonObjectSchema, JsonValueSchema, WorldChangeSchema } from "./world.ts";

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
  /**
   * The scene's clock: its running time in this session (timers fire on it; paused time and downtime do not count),
   * measured at `at` (epoch ms). While `status` is running it goes on from there: add the time since `at`.
   */
  clock: z.object({ runningMs: z.number().nonnegative(), at: z.number() }),
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

/**
 * `GET /api/scenes/:id/timeline`: the session log and the agents' step traces. With `since` (the
 * `cursor` of an earlier answer) only what was stored after it comes back, to append; `reset` says
 * the answer replaces what the client holds instead (a first read, or a new session since the cursor).
 * An answer is bounded in bytes (`maxBytes`): `more` says it was cut there; read on with `since: cursor`.
 */
export const SceneTimelineSchema = z.object({
  /** The session the entries and steps belong to; absent when the scene never ran. */
  sessionId: z.string().optional(),
  entries: z.array(SceneLogEntrySchema),
  /** Pass as `fromSeq` to read on. */
  nextSeq: z.number().int().nonnegative(),
  /** Steps recorded after the cursor (from the session's first without one), oldest first; a recorded step never changes. */
  steps: z.array(SceneStepViewSchema),
  /** Pass as `since` to read only what is new after this answer. */
  cursor: z.string(),
  /** True: `steps` start at the session's first (and `entries` at `fromSeq`, 0 after a session change); false: append both. */
  reset: z.boolean(),
  /** True: the answer reached its byte bound before what is stored now; read on with `since: cursor` (the rest is appended). */
  more: z.boolean().optional(),
});
export type SceneTimeline = z.infer<typeof SceneTimelineSchema>;

/** A place where a replay's state differs from the recorded one; a missing side had no value there. */
export const SceneStateDifferenceSchema = z.object({
  /** The agent whose private state differs; absent for the world state. */
  instanceId: z.string().optional(),
  /** Path in the world (or private) state, as scene tools write it (`a.b[2]`); "" is the whole state. */
  path: z.string(),
  recorded: JsonValueSchema.optional(),
  replayed: JsonValueSchema.optional(),
});
export type SceneStateDifference = z.infer<typeof SceneStateDifferenceSchema>;

/** `POST /api/scenes/:id/replay`: the states a replay from the record reached, next to the recorded ones. */
export const SceneReplayResultSchema = z.object({
  ok: z.boolean(),
  /** Replay states equal the recorded ones. */
  matches: z.boolean(),
  messages: z.number().int().nonnegative(),
  world: JsonObjectSchema,
  privateStates: z.record(z.string(), JsonObjectSchema),
  recorded: z.object({ world: JsonObjectSchema, privateStates: z.record(z.string(), JsonObjectSchema) }),
  /** Where the states differ (the first 200 places), world first, then each agent's private state. */
  differences: z.array(SceneStateDifferenceSchema),
  divergences: z.array(z.string()),
  unused: z.record(z.string(), z.number().int()),
});
export type SceneReplayResult = z.infer<typeof SceneReplayResultSchema>;

/** How far a replay is: user messages sent again, and recorded model outputs served, of all in the record. */
export const SceneReplayProgressSchema = z.object({
  messagesDone: z.number().int().nonnegative(),
  messages: z.number().int().nonnegative(),
  outputsUsed: z.number().int().nonnegative(),
  outputs: z.number().int().nonnegative(),
});
export type SceneReplayProgress = z.infer<typeof SceneReplayProgressSchema>;

/** One line of `POST /api/scenes/:id/replay` asked for as `application/x-ndjson`: progress, then the result or an error. */
export const SceneReplayLineSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("progress"), progress: SceneReplayProgressSchema }),
  z.object({ type: z.literal("result"), result: SceneReplayResultSchema }),
  z.object({ type: z.literal("error"), error: z.object({ code: z.string(), message: z.string() }) }),
]);
export type SceneReplayLine = z.infer<typeof SceneReplayLineSchema>;
