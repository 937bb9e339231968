import { z } from "zod";
import { ToolCallSchema } from "./llm.ts";
import { NodeErrorSchema } from "./run.ts";
import { JsonObjectSchema, JsonValueSchema, WorldChangeSchema } from "./world.ts";

/** A topic: at least two dot-separated segments, `namespace.name` (e.g. `task.created`, `game.round.ended`). */
export const EventTopicSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+$/, "a topic is `namespace.name`: two or more segments of letters, digits, _ or -, joined by dots (e.g. `task.created`)");

/**
 * A subscription pattern: a topic whose segments may be `*` (exactly one segment) or `**` (any
 * number of segments, also none). A lone `*` means every topic, like `**`.
 */
export const TopicPatternSchema = z
  .string()
  .regex(
    /^(\*|(\*\*|\*|[A-Za-z0-9_-]+)(\.(\*\*|\*|[A-Za-z0-9_-]+))*)$/,
    "a topic pattern is dot-separated segments, each a name, `*` (one segment) or `**` (any segments), e.g. `task.*`, `game.**`, `*`",
  );

export const OVERFLOW_POLICIES = ["drop-oldest", "drop-newest", "coalesce"] as const;
export const OverflowPolicySchema = z.enum(OVERFLOW_POLICIES);
export type OverflowPolicy = z.infer<typeof OverflowPolicySchema>;

/**
 * How an agent's queue of waiting triggers is bounded. When it is full: `drop-oldest` drops the
 * oldest waiting trigger, `drop-newest` drops the arriving one, `coalesce` merges the arriving one
 * into a waiting one of the same topic (or timer) and otherwise drops the oldest. User messages are
 * never dropped.
 */
export const MailboxConfigSchema = z.object({
  capacity: z.number().int().min(1).max(10_000).default(32),
  overflow: OverflowPolicySchema.default("coalesce"),
});
export type MailboxConfig = z.infer<typeof MailboxConfigSchema>;

export const SceneTriggerSchema = z.discriminatedUnion("kind", [
  /** Wakes the listed agents (all when omitted) on events matching `topic`, on top of their profiles' subscriptions. */
  z.object({ kind: z.literal("event"), topic: TopicPatternSchema, instanceIds: z.array(z.string()).optional() }),
  z.object({
    kind: z.literal("timer"),
    /** Names the timer for pause/resume; defaults to `timer-<index>`. */
    id: z.string().min(1).optional(),
    everyMs: z.number().int().positive(),
    instanceIds: z.array(z.string()).optional(),
    message: z.string().default("tick"),
  }),
]);
export type SceneTrigger = z.infer<typeof SceneTriggerSchema>;

export const SceneAgentSchema = z.object({
  instanceId: z.string().regex(/^[A-Za-z0-9_-]+$/, "an instance id is letters, digits, _ or -"),
  profileId: z.string().min(1),
  /** Runs this saved version of the profile (a fork made with another version); absent: the profile as it is now. */
  profileVersion: z.number().int().positive().optional(),
  /** Merged over the profile's initialPrivateState (top-level keys). */
  initialPrivateState: z.record(z.string(), z.unknown()).optional(),
  /** Overrides the scene's mailbox settings for this agent. */
  mailbox: MailboxConfigSchema.partial().optional(),
});
export type SceneAgent = z.infer<typeof SceneAgentSchema>;

/**
 * A fork's record of where it came from (issue #33 item 3): the scene, the agent's step it was forked at, and what was
 * changed there (the step's model output, or the observation of its call `index`), before and after.
 */
export const SceneForkOfSchema = z.object({
  sceneId: z.string(),
  instanceId: z.string(),
  triggerId: z.string(),
  step: z.number().int().positive(),
  changed: z.enum(["llmOutput", "observation"]),
  index: z.number().int().nonnegative().optional(),
  before: z.string(),
  after: z.string(),
  /** The version of the forked agent's profile its live steps ran with, when one was chosen. */
  agentVersion: z.number().int().positive().optional(),
  at: z.number(),
});
export type SceneForkOf = z.infer<typeof SceneForkOfSchema>;

export const SceneSchema = z
  .object({
    id: z.string().min(1),
    name: z.string().min(1),
    description: z.string().default(""),
    agents: z.array(SceneAgentSchema),
    initialWorldState: z.record(z.string(), z.unknown()).default({}),
    triggers: z.array(SceneTriggerSchema).default([]),
    /**
     * How many deliberations agents may cause in each other (through published events) between
     * two user messages; when used up the scene pauses and says why. Bounds agent loops.
     */
    stepBudget: z.number().int().positive().default(100),
    mailbox: MailboxConfigSchema.default({ capacity: 32, overflow: "coalesce" }),
    /** Whether an agent is woken by the events it published itself (off: no self-loops). */
    echoOwnEvents: z.boolean().default(false),
    /** Set on a fork of another scene's session: where it was forked and what was changed. */
    forkOf: SceneForkOfSchema.optional(),
    revision: z.number().int().min(0).default(0),
  })
  .superRefine((scene, ctx) => {
    const ids = new Set<string>();
    scene.agents.forEach((a, i) => {
      if (ids.has(a.instanceId)) ctx.addIssue({ code: "custom", path: ["agents", i, "instanceId"], message: `instance id "${a.instanceId}" is used twice; give every agent instance its own id` });
      ids.add(a.instanceId);
    });
    const timerIds = new Set<string>();
    scene.triggers.forEach((t, i) => {
      (t.instanceIds ?? []).forEach((id, j) => {
        if (!ids.has(id)) ctx.addIssue({ code: "custom", path: ["triggers", i, "instanceIds", j], message: `unknown instance "${id}"; the scene's agents are: ${[...ids].join(", ") || "(none)"}` });
      });
      if (t.kind === "timer") {
        const id = t.id ?? `timer-${i}`;
        if (timerIds.has(id)) ctx.addIssue({ code: "custom", path: ["triggers", i, "id"], message: `timer id "${id}" is used twice; timer ids must be unique` });
        timerIds.add(id);
      }
    });
  });
export type Scene = z.infer<typeof SceneSchema>;
export type SceneInput = z.input<typeof SceneSchema>;

/**
 * What wakes an agent: one item of its mailbox. `coalesced` counts the triggers merged into it.
 * `resumed` marks a trigger delivered again after a restore because its deliberation was cut off:
 * what that deliberation already did is in the scene log under the same trigger id.
 */
const triggerBase = { id: z.string(), at: z.number(), coalesced: z.number().int().nonnegative().default(0), resumed: z.boolean().optional() };
export const AgentTriggerSchema = z.discriminatedUnion("kind", [
  z.object({ ...triggerBase, kind: z.literal("event"), topic: EventTopicSchema, payload: JsonValueSchema, source: z.string(), eventSeq: z.number().int().nonnegative() }),
  z.object({ ...triggerBase, kind: z.literal("timer"), timerId: z.string(), message: z.string(), tick: z.number().int().nonnegative() }),
  z.object({ ...triggerBase, kind: z.literal("user"), text: z.string(), to: z.string() }),
]);
export type AgentTrigger = z.infer<typeof AgentTriggerSchema>;
export type AgentTriggerKind = AgentTrigger["kind"];

export const SCENE_STATUSES = ["idle", "running", "paused", "stopped"] as const;
export const SceneStatusSchema = z.enum(SCENE_STATUSES);
export type SceneStatus = z.infer<typeof SceneStatusSchema>;

export const SceneStatusReasonSchema = z.object({
  /** BUDGET_EXCEEDED: an agent's LLM call was refused by a token or cost budget; the scene pauses until it is raised and resumed. */
  code: z.enum(["REQUESTED", "STEP_BUDGET_EXHAUSTED", "RESTORED", "BUDGET_EXCEEDED"]),
  message: z.string(),
});
export type SceneStatusReason = z.infer<typeof SceneStatusReasonSchema>;

/** The ordered record of a scene session: every trigger and state change, for inspection and replay. */
const logBase = { seq: z.number().int().nonnegative(), ts: z.number() };
export const SceneLogEntrySchema = z.discriminatedUnion("kind", [
  z.object({ ...logBase, kind: z.literal("status"), status: SceneStatusSchema, reason: SceneStatusReasonSchema.optional() }),
  z.object({ ...logBase, kind: z.literal("event"), topic: EventTopicSchema, payload: JsonValueSchema, source: z.string(), eventSeq: z.number().int().nonnegative() }),
  z.object({ ...logBase, kind: z.literal("trigger.queued"), instanceId: z.string(), trigger: AgentTriggerSchema }),
  z.object({ ...logBase, kind: z.literal("trigger.coalesced"), instanceId: z.string(), trigger: AgentTriggerSchema, replacedId: z.string() }),
  z.object({ ...logBase, kind: z.literal("trigger.dropped"), instanceId: z.string(), trigger: AgentTriggerSchema, policy: OverflowPolicySchema }),
  z.object({ ...logBase, kind: z.literal("deliberation.started"), instanceId: z.string(), triggerId: z.string(), budgetUsed: z.number().int().nonnegative() }),
  z.object({ ...logBase, kind: z.literal("deliberation.finished"), instanceId: z.string(), triggerId: z.string(), ok: z.boolean(), error: z.string().optional() }),
  z.object({ ...logBase, kind: z.literal("world.changed"), change: WorldChangeSchema }),
  z.object({ ...logBase, kind: z.literal("private.changed"), instanceId: z.string(), op: z.enum(["set", "delete"]), path: z.string(), after: JsonValueSchema.optional() }),
  /** Raw model output of one deliberation step, so a replay can take it from the record instead of the provider. */
  z.object({
    ...logBase,
    kind: z.literal("llm.output"),
    instanceId: z.string(),
    triggerId: z.string(),
    step: z.number().int().nonnegative(),
    text: z.string(),
    reasoning: z.string().optional(),
    toolCalls: z.array(ToolCallSchema).optional(),
  }),
  /**
   * A tool or skill call an agent ran in a deliberation step (`step` counts the deliberation's model
   * calls from 1, `index` the step's executed calls from 0), with what the model was told: after a
   * crash the call is not run again, its recorded outcome is used.
   */
  z.object({
    ...logBase,
    kind: z.literal("action.completed"),
    instanceId: z.string(),
    triggerId: z.string(),
    step: z.number().int().positive(),
    index: z.number().int().nonnegative(),
    toolId: z.string(),
    params: JsonValueSchema,
    status: z.enum(["completed", "failed"]),
    ok: z.boolean(),
    observation: z.string(),
    runId: z.string().optional(),
    error: NodeErrorSchema.optional(),
    fullResultRef: z.string().optional(),
    durationMs: z.number().nonnegative(),
  }),
]);
export type SceneLogEntry = z.infer<typeof SceneLogEntrySchema>;
export type SceneLogKind = SceneLogEntry["kind"];
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type SceneLogDraft = DistributiveOmit<SceneLogEntry, "seq" | "ts">;

export const MailboxStateSchema = z.object({
  queue: z.array(AgentTriggerSchema),
  /** The trigger being deliberated when the state was taken; delivered again after a restore. */
  inFlight: AgentTriggerSchema.nullable(),
  delivered: z.number().int().nonnegative(),
  dropped: z.number().int().nonnegative(),
  coalesced: z.number().int().nonnegative(),
});
export type MailboxState = z.infer<typeof MailboxStateSchema>;

/** Everything a scene needs to continue after a restart (the log is stored separately, appended). */
export const SceneRuntimeStateSchema = z.object({
  version: z.literal(1),
  sceneId: z.string(),
  sceneRevision: z.number().int().min(0),
  status: SceneStatusSchema,
  reason: SceneStatusReasonSchema.optional(),
  world: z.object({ document: JsonObjectSchema, seq: z.number().int().nonnegative(), history: z.array(WorldChangeSchema) }),
  privateStates: z.record(z.string(), JsonObjectSchema),
  mailboxes: z.record(z.string(), MailboxStateSchema),
  budget: z.object({ limit: z.number().int().positive(), used: z.number().int().nonnegative() }),
  timers: z.array(z.object({ id: z.string(), ticks: z.number().int().nonnegative(), paused: z.boolean() })),
  counters: z.object({
    trigger: z.number().int().nonnegative(),
    event: z.number().int().nonnegative(),
    log: z.number().int().nonnegative(),
    stream: z.number().int().nonnegative(),
  }),
  /** The scene's running time in this session at `savedAt` (its clock: timers fire on it; paused time does not count). */
  runningMs: z.number().nonnegative().default(0),
  savedAt: z.number(),
});
export type SceneRuntimeState = z.infer<typeof SceneRuntimeStateSchema>;
