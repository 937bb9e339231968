import { isWorkflowRunEvent, type NodeError, type Observation, type RunEvent, type RunStatus } from "@weft/types";

export type NodeRunStatus = "idle" | "queued" | "running" | "retrying" | "completed" | "cached" | "skipped" | "failed" | "cancelled";
export type InvocationStatus = "running" | "retrying" | "completed" | "cached" | "failed" | "cancelled";

export interface Invocation {
  invocationId: string;
  status: InvocationStatus;
  attempt: number;
  inputs: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  chunks: unknown[];
  /** The text of the streamed chunks, joined: what the node is writing right now. */
  text: string;
  error?: NodeError;
  retries: { attempt: number; delayMs: number; error: NodeError }[];
  startedAt: number;
  durationMs?: number;
  cached: boolean;
  /** Failed, but its policy sent the error on as data (`outputs.$error`): the run went on. */
  handled?: boolean;
}

export interface NodeRun {
  status: NodeRunStatus;
  invocations: Invocation[];
  skipReason?: string;
  causeNodeId?: string;
}

export interface RunView {
  runId: string;
  workflowId: string;
  /** The stored revision the run was started from, when known. */
  workflowRevision?: number;
  /** The saved version of the workflow it ran, when it was one. */
  workflowVersion?: number;
  status: RunStatus;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  error?: NodeError;
  cancelReason?: string;
  startedAt?: number;
  durationMs?: number;
  /** A fork's parent run and the node it was forked at. */
  forkOf?: { runId: string; nodeId: string };
  /** The last event applied; events at or below it are duplicates (a resumed stream repeats none, but be safe). */
  lastSeq: number;
  nodes: Record<string, NodeRun>;
}

export function newRunView(runId: string, workflowId: string, nodeIds: string[], status: RunStatus = "queued"): RunView {
  const nodes: Record<string, NodeRun> = {};
  for (const id of nodeIds) nodes[id] = { status: "queued", invocations: [] };
  return { runId, workflowId, status, inputs: {}, outputs: {}, lastSeq: -1, nodes };
}

/** The text a chunk carries: a string, or the `text` / `delta` / `content` string of an object chunk. */
export function chunkText(chunk: unknown): string {
  if (typeof chunk === "string") return chunk;
  if (typeof chunk === "object" && chunk !== null) {
    for (const key of ["text", "delta", "content"]) {
      const value = (chunk as Record<string, unknown>)[key];
      if (typeof value === "string") return value;
    }
  }
  return "";
}

function nodeRun(view: RunView, nodeId: string): NodeRun {
  let run = view.nodes[nodeId];
  if (!run) {
    run = { status: "idle", invocations: [] };
    view.nodes[nodeId] = run;
  }
  return run;
}

function invocation(view: RunView, nodeId: string, invocationId: string): Invocation | undefined {
  return view.nodes[nodeId]?.invocations.find((i) => i.invocationId === invocationId);
}

const FINISHED: ReadonlySet<NodeRunStatus> = new Set(["completed", "cached", "skipped", "failed", "cancelled"]);

/**
 * Applies one event to the view in place (the view may be a Vue reactive object, so only the node
 * that changed re-renders). Returns false for an event already applied or of another kind of stream.
 */
export function applyRunEvent(view: RunView, event: RunEvent): boolean {
  if (event.seq <= view.lastSeq) return false;
  view.lastSeq = event.seq;
  // Agent and scene events travel on other streams; a run view has nothing to show for them.
  if (!isWorkflowRunEvent(event)) return false;
  switch (event.type) {
    case "run.started":
      view.status = "running";
      view.inputs = event.inputs;
      view.startedAt = event.ts;
      return true;
    case "node.started": {
      const run = nodeRun(view, event.nodeId);
      const existing = invocation(view, event.nodeId, event.invocationId);
      const fresh: Invocation = {
        invocationId: event.invocationId,
        status: "running",
        attempt: event.attempt,
        inputs: event.inputs,
        chunks: [],
        text: "",
        retries: existing?.retries ?? [],
        startedAt: event.ts,
        cached: false,
      };
      if (existing) Object.assign(existing, fresh);
      else run.invocations.push(fresh);
      run.status = "running";
      return true;
    }
    case "node.chunk": {
      const inv = invocation(view, event.nodeId, event.invocationId);
      if (!inv) return true;
      inv.chunks.push(event.chunk);
      const text = chunkText(event.chunk);
      if (text) inv.text += text;
      return true;
    }
    case "node.retrying": {
      const inv = invocation(view, event.nodeId, event.invocationId);
      if (inv) {
        inv.retries.push({ attempt: event.attempt, delayMs: event.delayMs, error: event.error });
        inv.status = "retrying";
      }
      nodeRun(view, event.nodeId).status = "retrying";
      return true;
    }
    case "node.completed": {
      const run = nodeRun(view, event.nodeId);
      let inv = invocation(view, event.nodeId, event.invocationId);
      if (!inv) {
        // A cached node, or one that completed within its call, has no node.started: the completion carries its inputs.
        inv = {
          invocationId: event.invocationId,
          status: "completed",
          attempt: 1,
          inputs: event.inputs ?? {},
          chunks: [],
          text: "",
          retries: [],
          startedAt: event.ts - event.durationMs,
          cached: event.cached,
        };
        run.invocations.push(inv);
      }
      inv.status = event.cached ? "cached" : "completed";
      inv.outputs = event.outputs;
      inv.durationMs = event.durationMs;
      inv.cached = event.cached;
      run.status = event.cached ? "cached" : "completed";
      return true;
    }
    case "node.failed": {
      const run = nodeRun(view, event.nodeId);
      let inv = invocation(view, event.nodeId, event.invocationId);
      if (!inv) {
        inv = { invocationId: event.invocationId, status: "failed", attempt: 1, inputs: {}, chunks: [], text: "", retries: [], startedAt: event.ts, cached: false };
        run.invocations.push(inv);
      }
      inv.status = "failed";
      inv.error = event.error;
      inv.durationMs = event.durationMs;
      if (event.handled) {
        inv.handled = true;
        inv.outputs = event.outputs;
      }
      run.status = event.error.code === "CANCELLED" ? "cancelled" : "failed";
      return true;
    }
    case "node.skipped": {
      const run = nodeRun(view, event.nodeId);
      run.status = "skipped";
      run.skipReason = event.reason;
      run.causeNodeId = event.causeNodeId;
      return true;
    }
    case "run.completed":
      view.status = "completed";
      view.outputs = event.outputs;
      view.durationMs = event.durationMs;
      settle(view, "idle");
      return true;
    case "run.failed":
      // The server stores such a run as budget_exceeded; the live view says the same.
      view.status = event.error.code === "BUDGET_EXCEEDED" ? "budget_exceeded" : "failed";
      view.error = event.error;
      view.outputs = event.outputs;
      view.durationMs = event.durationMs;
      settle(view, "idle");
      return true;
    case "run.cancelled":
      view.status = "cancelled";
      view.cancelReason = event.reason;
      view.durationMs = event.durationMs;
      settle(view, "cancelled");
      return true;
    case "run.waiting":
      // Paused for a decision: the nodes after the approval have not run yet, and stay as they are until it resumes.
      view.status = "waiting";
      view.durationMs = event.durationMs;
      return true;
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** After the run ends: nodes still queued never ran; nodes still running were stopped. */
function settle(view: RunView, notRun: NodeRunStatus) {
  for (const run of Object.values(view.nodes)) {
    if (run.status === "queued") run.status = notRun;
    else if (!FINISHED.has(run.status) && run.status !== "idle") {
      run.status = "cancelled";
      for (const inv of run.invocations) if (inv.status === "running" || inv.status === "retrying") inv.status = "cancelled";
    }
  }
}

/** A finished (or persisted) run rebuilt from its observations: what the debugger shows for a past run. */
export function runViewFromObservations(
  run: { id: string } & Pick<RunView, "workflowId" | "workflowRevision" | "workflowVersion" | "status" | "inputs" | "outputs" | "error" | "startedAt" | "durationMs">,
  observations: Observation[],
): RunView {
  const view = newRunView(run.id, run.workflowId, [], run.status);
  Object.assign(view, {
    workflowRevision: run.workflowRevision,
    workflowVersion: run.workflowVersion,
    inputs: run.inputs,
    outputs: run.outputs,
    error: run.error,
    startedAt: run.startedAt,
    durationMs: run.durationMs,
  });
  for (const o of [...observations].sort((a, b) => a.startedAt - b.startedAt)) {
    const node = nodeRun(view, o.nodeId);
    if (o.status === "skipped") {
      node.status = "skipped";
      node.skipReason = o.skipReason;
      continue;
    }
    const status: InvocationStatus = o.status === "completed" ? (o.cached ? "cached" : "completed") : o.status;
    node.invocations.push({
      invocationId: o.invocationId,
      status,
      attempt: o.attempts,
      inputs: o.inputs,
      outputs: o.outputs,
      chunks: o.chunks,
      text: o.chunks.map(chunkText).join(""),
      error: o.error,
      retries: [],
      startedAt: o.startedAt,
      durationMs: o.durationMs,
      cached: o.cached,
      ...(o.handled ? { handled: true } : {}),
    });
    node.status = status;
  }
  return view;
}

/** Whether a cache hit was seen live: its event carries outputs only, its inputs are in the stored observation. */
export const hasCacheHits = (view: RunView): boolean => Object.values(view.nodes).some((n) => n.invocations.some((i) => i.cached));

/** Gives each cached invocation the inputs its stored observation records (the engine keeps them; the live event does not). */
export function fillCachedInputs(view: RunView, observations: Observation[]): void {
  for (const o of observations) {
    if (!o.cached) continue;
    const inv = invocation(view, o.nodeId, o.invocationId);
    if (inv) inv.inputs = o.inputs;
  }
}

/** Whether the edge from `sourceNode.sourceHandle` carried a value in this run (its source produced that output). */
export function edgeCarried(view: RunView | undefined, sourceNode: string, sourceHandle: string): boolean {
  const run = view?.nodes[sourceNode];
  if (!run) return false;
  const last = run.invocations[run.invocations.length - 1];
  return !!last?.outputs && Object.prototype.hasOwnProperty.call(last.outputs, sourceHandle);
}

export const isRunActive = (status: RunStatus): boolean => status === "queued" || status === "running";

/** Whether the run will still send events: active, or waiting for a decision (it resumes on the same stream). */
export const isRunLive = (status: RunStatus): boolean => isRunActive(status) || status === "waiting";
