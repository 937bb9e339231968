import { z } from "zod";
import { NodeErrorSchema } from "./run.ts";
import { RunWaitSchema } from "./approval.ts";

/**
 * Every event of a run, an agent conversation or a scene. `streamId` is the run id (or the
 * conversation / scene id); `seq` increases by one per stream, so a client resumes from the last
 * number it saw and loses nothing.
 */
function runEventUnion() {
  const base = { streamId: z.string(), seq: z.number().int().nonnegative(), ts: z.number() };
  const nodeRef = { nodeId: z.string(), invocationId: z.string() };
  return z.discriminatedUnion("type", [
    /** The first event of a run, before any node event; `nodeCount` counts the document's nodes. */
    z.object({ ...base, type: z.literal("run.started"), runId: z.string(), workflowId: z.string(), nodeCount: z.number().int(), inputs: z.record(z.string(), z.unknown()) }),
    /** An invocation began an attempt (`attempt` 1, then again after each node.retrying). Never sent for a cache hit, nor for a node that completed within its call (its node.completed says so). */
    z.object({ ...base, type: z.literal("node.started"), ...nodeRef, nodeType: z.string(), inputs: z.record(z.string(), z.unknown()), attempt: z.number().int() }),
    /** A piece the node streamed, between its node.started and its final event; `index` counts from 0 per invocation. */
    z.object({ ...base, type: z.literal("node.chunk"), ...nodeRef, index: z.number().int(), chunk: z.unknown() }),
    /** The attempt failed with `error` and another comes after `delayMs`; its node.started follows with `attempt` one higher. */
    z.object({ ...base, type: z.literal("node.retrying"), ...nodeRef, attempt: z.number().int(), delayMs: z.number(), error: NodeErrorSchema }),
    /**
     * The invocation's outputs are final. With `cached: true` it was served from the cache; no node.started came before it.
     * A node that completed within its own call (nothing to watch while it ran) has no node.started either. In both
     * cases the event carries the `nodeType` and `inputs` a node.started would have.
     */
    z.object({
      ...base,
      type: z.literal("node.completed"),
      ...nodeRef,
      outputs: z.record(z.string(), z.unknown()),
      durationMs: z.number(),
      cached: z.boolean(),
      nodeType: z.string().optional(),
      inputs: z.record(z.string(), z.unknown()).optional(),
    }),
    /** The invocation ended without outputs: it failed, timed out or was cancelled (`error.code` says which); no retry follows. */
    z.object({
      ...base,
      type: z.literal("node.failed"),
      ...nodeRef,
      error: NodeErrorSchema,
      durationMs: z.number(),
      /** The node's policy sends its error on (`onError: "route"`): `outputs` holds its `$error` output, the run goes on. */
      handled: z.literal(true).optional(),
      outputs: z.record(z.string(), z.unknown()).optional(),
    }),
    /** The node never started: an input it needs is dead (a failed node or an untaken branch, `causeNodeId`), or the run stopped or was cancelled first. No invocationId. */
    z.object({ ...base, type: z.literal("node.skipped"), nodeId: z.string(), reason: z.string(), causeNodeId: z.string().optional() }),
    /** The last event of a successful run: every node has its final event; `outputs` are the interface's outputs. */
    z.object({ ...base, type: z.literal("run.completed"), runId: z.string(), outputs: z.record(z.string(), z.unknown()), durationMs: z.number() }),
    /** The last event of a failed run: every node has its final event; `outputs` holds what was produced before it failed. */
    z.object({ ...base, type: z.literal("run.failed"), runId: z.string(), error: NodeErrorSchema, outputs: z.record(z.string(), z.unknown()), durationMs: z.number() }),
    /** The last event of a cancelled run: running nodes ended with node.failed and waiting ones with node.skipped first. */
    z.object({ ...base, type: z.literal("run.cancelled"), runId: z.string(), reason: z.string(), durationMs: z.number() }),
    /** The run paused: these nodes wait for a decision (`core:approval`); a later execution of the same run resumes it. */
    z.object({ ...base, type: z.literal("run.waiting"), runId: z.string(), waiting: z.array(RunWaitSchema), durationMs: z.number() }),
    // Agent loop (AgentInstance), on the conversation's stream.
    /** A step of the agent loop changes phase: `deliberating` (its LLM workflow runs), `acting` (a tool runs), `done`. */
    z.object({ ...base, type: z.literal("agent.step"), agentId: z.string(), step: z.number().int(), phase: z.enum(["deliberating", "acting", "done"]) }),
    /** The model's whole reply for a step, after its deliberation run; `finishReason` as the provider gave it. */
    z.object({
      ...base,
      type: z.literal("agent.llm.output"),
      agentId: z.string(),
      step: z.number().int(),
      text: z.string(),
      reasoning: z.string().optional(),
      runId: z.string().optional(),
      finishReason: z.string().optional(),
    }),
    /** The reply's call was read and validated and is about to run; `notes` list the repairs made (case, names). */
    z.object({
      ...base,
      type: z.literal("agent.action.parsed"),
      agentId: z.string(),
      step: z.number().int(),
      toolId: z.string(),
      params: z.record(z.string(), z.unknown()),
      notes: z.array(z.string()),
    }),
    /** The reply's call cannot run (`code`); an agent.observation with what the model is told follows. */
    z.object({ ...base, type: z.literal("agent.action.rejected"), agentId: z.string(), step: z.number().int(), code: z.string(), message: z.string() }),
    /** Exactly what the model receives as the result of the step's action (or its mistake); `runId` is the tool run. */
    z.object({ ...base, type: z.literal("agent.observation"), agentId: z.string(), step: z.number().int(), text: z.string(), ok: z.boolean(), runId: z.string().optional() }),
    /** The loop stopped (`status`: an AgentStatus such as completed, waiting_user, max_steps, failed); `text` is the answer, question or reason. */
    z.object({ ...base, type: z.literal("agent.finished"), agentId: z.string(), status: z.string(), text: z.string().optional() }),
    /** The loop waits for the user to allow `tool` on `target`; an agent.permission.answered follows. */
    z.object({ ...base, type: z.literal("agent.permission.requested"), agentId: z.string(), requestId: z.string(), tool: z.string(), target: z.string().optional() }),
    /** The user's answer to `requestId`; the loop goes on (a `reject` becomes a refused observation). */
    z.object({ ...base, type: z.literal("agent.permission.answered"), agentId: z.string(), requestId: z.string(), answer: z.enum(["once", "always", "reject"]) }),
    // Scenes, on the scene's stream.
    /** A message published on the scene's bus under `topic`, by an agent, the user or a timer (`source`). */
    z.object({ ...base, type: z.literal("scene.event"), topic: z.string(), payload: z.unknown(), source: z.string() }),
    /** The scene started, paused, resumed, stopped or failed (`reason` when it was not asked for). */
    z.object({ ...base, type: z.literal("scene.status"), status: z.string(), reason: z.string().optional() }),
    /** A write to the shared world state is applied: `value` at `path` (absent for `op: "delete"`), by `agentId` if an agent. */
    z.object({ ...base, type: z.literal("world.changed"), path: z.string(), value: z.unknown(), agentId: z.string().optional(), op: z.enum(["set", "delete"]).optional() }),
    /** The scene's session log is stored up to `nextSeq - 1`, with the state it led to: read the timeline from there. */
    z.object({ ...base, type: z.literal("scene.log"), nextSeq: z.number().int().nonnegative() }),
    /** An eval run (its stream is its id) finished one case run: `done` of `total` case runs, over all sides. */
    z.object({ ...base, type: z.literal("eval.progress"), evalRunId: z.string(), caseId: z.string(), side: z.number().int(), pass: z.boolean(), done: z.number().int(), total: z.number().int() }),
    /** The eval run ended: each side's pass rate (0–1). */
    z.object({ ...base, type: z.literal("eval.finished"), evalRunId: z.string(), status: z.string(), passRates: z.array(z.number()) }),
  ]);
}

/**
 * Built on its first use (z.lazy keeps the one schema it builds): ~25 object schemas that opening the editor, which
 * shows no event before a run, would otherwise build as the first load's modules are evaluated.
 */
export const RunEventSchema = z.lazy(runEventUnion);
export type RunEvent = z.infer<typeof RunEventSchema>;
export type RunEventType = RunEvent["type"];

/** An event before the sink stamps it with its stream, sequence number and time. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type RunEventDraft = DistributiveOmit<RunEvent, "streamId" | "seq" | "ts">;

export type RunEventSink = (event: RunEvent) => void;

const WORKFLOW_RUN_EVENT_TYPES = [
  "run.started",
  "node.started",
  "node.chunk",
  "node.retrying",
  "node.completed",
  "node.failed",
  "node.skipped",
  "run.completed",
  "run.failed",
  "run.cancelled",
  "run.waiting",
] as const satisfies readonly RunEventType[];
const workflowRunEventTypes: ReadonlySet<RunEventType> = new Set(WORKFLOW_RUN_EVENT_TYPES);

/** The events of a workflow run; agent and scene events travel on their own streams. */
export type WorkflowRunEvent = Extract<RunEvent, { type: (typeof WORKFLOW_RUN_EVENT_TYPES)[number] }>;
export const isWorkflowRunEvent = (event: RunEvent): event is WorkflowRunEvent => workflowRunEventTypes.has(event.type);
