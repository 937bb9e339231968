import { z } from "zod";
import { NodeErrorSchema } from "./run.ts";

/**
 * Every event of a run, an agent conversation or a scene. `streamId` is the run id (or the
 * conversation / scene id); `seq` increases by one per stream, so a client resumes from the last
 * number it saw and loses nothing.
 */
const base = { streamId: z.string(), seq: z.number().int().nonnegative(), ts: z.number() };
const nodeRef = { nodeId: z.string(), invocationId: z.string() };

export const RunEventSchema = z.discriminatedUnion("type", [
  z.object({ ...base, type: z.literal("run.started"), runId: z.string(), workflowId: z.string(), nodeCount: z.number().int(), inputs: z.record(z.string(), z.unknown()) }),
  z.object({ ...base, type: z.literal("node.started"), ...nodeRef, nodeType: z.string(), inputs: z.record(z.string(), z.unknown()), attempt: z.number().int() }),
  z.object({ ...base, type: z.literal("node.chunk"), ...nodeRef, index: z.number().int(), chunk: z.unknown() }),
  z.object({ ...base, type: z.literal("node.retrying"), ...nodeRef, attempt: z.number().int(), delayMs: z.number(), error: NodeErrorSchema }),
  z.object({ ...base, type: z.literal("node.completed"), ...nodeRef, outputs: z.record(z.string(), z.unknown()), durationMs: z.number(), cached: z.boolean() }),
  z.object({ ...base, type: z.literal("node.failed"), ...nodeRef, error: NodeErrorSchema, durationMs: z.number() }),
  z.object({ ...base, type: z.literal("node.skipped"), nodeId: z.string(), reason: z.string(), causeNodeId: z.string().optional() }),
  z.object({ ...base, type: z.literal("run.completed"), runId: z.string(), outputs: z.record(z.string(), z.unknown()), durationMs: z.number() }),
  z.object({ ...base, type: z.literal("run.failed"), runId: z.string(), error: NodeErrorSchema, outputs: z.record(z.string(), z.unknown()), durationMs: z.number() }),
  z.object({ ...base, type: z.literal("run.cancelled"), runId: z.string(), reason: z.string(), durationMs: z.number() }),
  // Agent loop (AgentInstance).
  z.object({ ...base, type: z.literal("agent.step"), agentId: z.string(), step: z.number().int(), phase: z.enum(["deliberating", "acting", "done"]) }),
  z.object({ ...base, type: z.literal("agent.llm.output"), agentId: z.string(), step: z.number().int(), text: z.string(), reasoning: z.string().optional(), runId: z.string().optional(), finishReason: z.string().optional() }),
  z.object({ ...base, type: z.literal("agent.action.parsed"), agentId: z.string(), step: z.number().int(), toolId: z.string(), params: z.record(z.string(), z.unknown()), notes: z.array(z.string()) }),
  z.object({ ...base, type: z.literal("agent.action.rejected"), agentId: z.string(), step: z.number().int(), code: z.string(), message: z.string() }),
  z.object({ ...base, type: z.literal("agent.observation"), agentId: z.string(), step: z.number().int(), text: z.string(), ok: z.boolean(), runId: z.string().optional() }),
  z.object({ ...base, type: z.literal("agent.finished"), agentId: z.string(), status: z.string(), text: z.string().optional() }),
  z.object({ ...base, type: z.literal("agent.permission.requested"), agentId: z.string(), requestId: z.string(), tool: z.string(), target: z.string().optional() }),
  z.object({ ...base, type: z.literal("agent.permission.answered"), agentId: z.string(), requestId: z.string(), answer: z.enum(["once", "always", "reject"]) }),
  // Scenes.
  z.object({ ...base, type: z.literal("scene.event"), topic: z.string(), payload: z.unknown(), source: z.string() }),
  z.object({ ...base, type: z.literal("scene.status"), status: z.string(), reason: z.string().optional() }),
  z.object({ ...base, type: z.literal("world.changed"), path: z.string(), value: z.unknown(), agentId: z.string().optional(), op: z.enum(["set", "delete"]).optional() }),
  /** The scene's session log is stored up to `nextSeq - 1`, with the state it led to: read the timeline from there. */
  z.object({ ...base, type: z.literal("scene.log"), nextSeq: z.number().int().nonnegative() }),
]);
export type RunEvent = z.infer<typeof RunEventSchema>;
export type RunEventType = RunEvent["type"];

/** An event before the sink stamps it with its stream, sequence number and time. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type RunEventDraft = DistributiveOmit<RunEvent, "streamId" | "seq" | "ts">;

export type RunEventSink = (event: RunEvent) => void;

const WORKFLOW_RUN_EVENT_TYPES = ["run.started", "node.started", "node.chunk", "node.retrying", "node.completed", "node.failed", "node.skipped", "run.completed", "run.failed", "run.cancelled"] as const satisfies readonly RunEventType[];
const workflowRunEventTypes: ReadonlySet<RunEventType> = new Set(WORKFLOW_RUN_EVENT_TYPES);

/** The events of a workflow run; agent and scene events travel on their own streams. */
export type WorkflowRunEvent = Extract<RunEvent, { type: (typeof WORKFLOW_RUN_EVENT_TYPES)[number] }>;
export const isWorkflowRunEvent = (event: RunEvent): event is WorkflowRunEvent => workflowRunEventTypes.has(event.type);
