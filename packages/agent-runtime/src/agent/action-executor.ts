import { traceToolCall } from "./agent-spans.ts";
import { ToolFailureResultSchema, type NodeCatalog, type NodeError, type NodeServices, type RunEventSink, type RunResult, type Workflow, type WorkflowSource, messageOf } from "@weft/types";
import { DEFAULT_OBSERVATION_CHARS, formatObservation } from "../action/index.ts";
import { newRunId } from "../engine/run-id.ts";
import { safeJson } from "../action/json.ts";
import type { ToolOutputStore } from "../conversation/index.ts";
import type { ExecutionEngine } from "../engine/index.ts";

/** A validated call (from `parseAction` or `parseToolCallArguments`). */
export interface ActionCall {
  /** Node type or skill workflow id. */
  toolId: string;
  toolKind: "tool" | "skill";
  /** The LLM-safe name, as the Observation names the tool. */
  toolName: string;
  params: Record<string, unknown>;
  /** Repairs the parser made, shown to the model with the result. */
  notes?: readonly string[];
}

export interface ActionRunOptions {
  /** Default: a new uuid. Recorded in the agent step that caused the run. */
  runId?: string;
  signal?: AbortSignal;
  /** The run's events (its own stream, `streamId` = run id), e.g. for the backend to persist. */
  onEvent?: RunEventSink;
  services?: NodeServices;
  /** Names the full result when it is stored (default: the run id). */
  resultKey?: string;
}

export interface ActionOutcome {
  status: "completed" | "failed" | "cancelled";
  /** Completed, and the tool did not report a failure in its result. */
  ok: boolean;
  /** Absent when nothing could run (e.g. the skill's workflow is gone). */
  runId?: string;
  /** What the model is shown: the run's outputs, or a tool host node's ToolResult. */
  result?: unknown;
  error?: NodeError;
  observation: string;
  fullResultRef?: string;
  startedAt: number;
  durationMs: number;
}

export interface ActionExecutorOptions {
  engine: ExecutionEngine;
  /** For node specs: which parameters are settings (config) rather than inputs. */
  catalog: NodeCatalog;
  /** Where skills' saved workflows come from. */
  workflows: WorkflowSource;
  /** Keeps results too large for an Observation, so the model can read them on demand. */
  outputStore?: ToolOutputStore;
  /** Longest result an Observation shows in full (default 4000 characters). */
  observationChars?: number;
}

/**
 * Runs a validated call through the engine (seed 004 §7.3): an atomic tool as a single-node
 * workflow generated on the fly, a skill as its saved workflow with the parameters as interface
 * inputs. Both are normal runs with observations and events; the result becomes Observation text.
 * Never throws.
 */
export class ActionExecutor {
  private readonly maxChars: number;

  constructor(private readonly options: ActionExecutorOptions) {
    this.maxChars = options.observationChars ?? DEFAULT_OBSERVATION_CHARS;
  }

  async execute(call: ActionCall, options: ActionRunOptions = {}): Promise<ActionOutcome> {
    const tracing = this.options.engine.tracing;
    return tracing ? traceToolCall(tracing, call, () => this.run(call, options)) : this.run(call, options);
  }

  private async run(call: ActionCall, options: ActionRunOptions): Promise<ActionOutcome> {
    const startedAt = Date.now();
    const t0 = performance.now();
    const runId = options.runId ?? newRunId();
    const prepared = await this.prepare(call);
    if (!prepared.ok) {
      return { status: "failed", ok: false, error: prepared.error, observation: this.failure(call, prepared.error, "failed"), startedAt, durationMs: performance.now() - t0 };
    }
    const run = await this.options.engine.run(prepared.workflow, {
      runId,
      inputs: prepared.inputs,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      ...(options.services ? { services: options.services } : {}),
    });
    const base = { runId, startedAt };
    if (run.status !== "completed") {
      const error = runError(run, call.toolKind);
      // A tool call's run cannot pause (it is not `mayPause`: an approval node fails it), so it never ends waiting.
      const status = run.status === "waiting" ? "failed" : run.status;
      return { ...base, status, ok: false, error, observation: this.failure(call, error, status), durationMs: performance.now() - t0 };
    }
    const observed = observedResult(run.outputs);
    if (!observed.ok) {
      return { ...base, status: "completed", ok: false, result: observed.value, error: observed.error, observation: this.failure(call, observed.error, "failed"), durationMs: performance.now() - t0 };
    }
    const fullResultRef = await this.storeIfLarge(observed.value, options.resultKey ?? runId);
    const observation = formatObservation(
      { kind: "success", toolName: call.toolName, outputs: observed.value, ...(call.notes?.length ? { notes: call.notes } : {}) },
      { maxChars: this.maxChars, ...(fullResultRef ? { fullResultRef } : {}) },
    );
    return { ...base, status: "completed", ok: true, result: observed.value, observation, ...(fullResultRef ? { fullResultRef } : {}), durationMs: performance.now() - t0 };
  }

  private async prepare(call: ActionCall): Promise<{ ok: true; workflow: Workflow; inputs?: Record<string, unknown> } | { ok: false; error: NodeError }> {
    if (call.toolKind === "tool") {
      return { ok: true, workflow: this.options.engine.singleNodeWorkflow(call.toolId, call.params) };
    }
    try {
      const workflow = await this.options.workflows.getWorkflow(call.toolId);
      if (!workflow) return { ok: false, error: { code: "SKILL_NOT_FOUND", message: `the workflow "${call.toolId}" behind this skill no longer exists` } };
      return { ok: true, workflow, inputs: call.params };
    } catch (error) {
      return { ok: false, error: { code: "SKILL_NOT_FOUND", message: `the workflow "${call.toolId}" could not be loaded: ${messageOf(error)}` } };
    }
  }

  private failure(call: ActionCall, error: Pick<NodeError, "code" | "message">, status: "failed" | "cancelled"): string {
    return formatObservation({ kind: "failure", toolName: call.toolName, status, error, ...(call.notes?.length ? { notes: call.notes } : {}) }, { maxChars: this.maxChars });
  }

  private async storeIfLarge(value: Record<string, unknown>, key: string): Promise<string | undefined> {
    const store = this.options.outputStore;
    if (!store) return undefined;
    const json = safeJson(value);
    if (json.length <= this.maxChars) return undefined;
    try {
      return await store.save(key, json);
    } catch {
      // The preview still goes out; the Observation then says the full result was not kept.
      return undefined;
    }
  }
}

/**
 * What the run's outputs mean to the model. Tool host nodes (`fs:*`, `shell:exec`) report a failed
 * call as `{ result: { ok: false, error }, ok: false }` rather than failing: that is a failed action,
 * and a successful one is shown as its ToolResult (seed 000 §7), not as the node's ports.
 */
function observedResult(outputs: Record<string, unknown>): { ok: true; value: Record<string, unknown> } | { ok: false; value: unknown; error: NodeError } {
  const result = outputs.result;
  if (typeof outputs.ok === "boolean" && typeof result === "object" && result !== null && (result as { ok?: unknown }).ok === outputs.ok) {
    if (outputs.ok) return { ok: true, value: result as Record<string, unknown> };
    const failed = ToolFailureResultSchema.safeParse(result);
    if (failed.success) return { ok: false, value: result, error: failed.data.error };
  }
  return { ok: true, value: outputs };
}

/** A single node's own error reads better than the run's "node x failed: …" wrapper. */
function runError(run: RunResult, kind: ActionCall["toolKind"]): NodeError {
  const fallback: NodeError = run.error ?? { code: run.status === "cancelled" ? "CANCELLED" : "FAILED", message: `the run ${run.status === "cancelled" ? "was cancelled" : "failed"}` };
  if (kind !== "tool" || run.status === "cancelled") return fallback;
  return run.observations.find((o) => o.status === "failed")?.error ?? fallback;
}
