import type { AgentStepTrace } from "@weft/types";
import type { LiveStep } from "./agent-live.ts";

/** How one action of a step was read: the call (tool or skill, with its parameters), or why it was refused. */
export type TraceParse =
  { kind: "call"; name: string; toolKind?: "tool" | "skill"; params: Record<string, unknown>; notes: string[] } | { kind: "error"; code: string; message: string; where?: string };

export interface TraceAction {
  parse: TraceParse;
  /** `completed`, `failed`, `rejected`, … or `running` while a live action has no Observation yet. */
  status: string;
  ok?: boolean;
  /** The action's run: open it in the debugger. */
  runId?: string;
  errorText?: string;
  observation?: string;
  permissions: { tool: string; target?: string; answer: string }[];
}

/** One deliberation step as the trace panel shows it, recorded or still under way. */
export interface TraceStep {
  key: string;
  step: number;
  live: boolean;
  /** The agent's status after the step (`running`: the loop went on), or the live phase. */
  status: string;
  reason?: string;
  startedAt?: number;
  durationMs?: number;
  deliberationRunId?: string;
  deliberationError?: string;
  /** The raw LLM output, and the reasoning the model gave with it. */
  text?: string;
  /** The native tool calls of the output (`openai-tools`), each as `name(arguments)`. */
  toolCalls: string[];
  reasoning?: string;
  notes: string[];
  actions: TraceAction[];
}

/** A recorded step (`key`: unique among the steps shown together). */
export function traceOfRecorded(trace: AgentStepTrace, key: string): TraceStep {
  const d = trace.deliberation;
  return {
    key,
    step: trace.step,
    live: false,
    status: trace.status,
    ...(trace.reason ? { reason: trace.reason } : {}),
    startedAt: trace.startedAt,
    durationMs: trace.durationMs,
    ...(d.runId ? { deliberationRunId: d.runId } : {}),
    ...(d.error ? { deliberationError: `${d.error.code}: ${d.error.message}` } : {}),
    text: trace.output.text,
    toolCalls: trace.output.toolCalls.map((c) => `${c.function.name}(${c.function.arguments})`),
    ...(trace.output.reasoning ? { reasoning: trace.output.reasoning } : {}),
    notes: trace.notes,
    actions: trace.actions.map((a) => ({
      parse:
        a.parse.kind === "call"
          ? { kind: "call", name: a.parse.toolName, toolKind: a.parse.toolKind, params: a.parse.params, notes: a.parse.notes }
          : {
              kind: "error",
              code: a.parse.code,
              message: a.parse.message,
              ...(a.parse.line !== undefined ? { where: `line ${a.parse.line}${a.parse.column !== undefined ? `, column ${a.parse.column}` : ""}` } : {}),
            },
      status: a.status,
      ok: a.ok,
      ...(a.runId ? { runId: a.runId } : {}),
      ...(a.error ? { errorText: `${a.error.code}: ${a.error.message}` } : {}),
      ...(a.observation ? { observation: a.observation } : {}),
      permissions: a.permissions,
    })),
  };
}

/** A step under way, as its events tell it so far. */
export function traceOfLive(step: LiveStep): TraceStep {
  return {
    key: `live-${step.instanceId}-${step.step}`,
    step: step.step,
    live: true,
    status: step.phase,
    ...(step.runId ? { deliberationRunId: step.runId } : {}),
    ...(step.text !== undefined ? { text: step.text } : {}),
    toolCalls: [],
    ...(step.reasoning ? { reasoning: step.reasoning } : {}),
    notes: [],
    actions: step.actions.map((a) => ({
      parse: a.parse.kind === "call" ? { kind: "call", name: a.parse.toolId, params: a.parse.params, notes: [] } : { kind: "error", code: a.parse.code, message: a.parse.message },
      status: a.observation ? (a.observation.ok ? "completed" : "failed") : a.parse.kind === "error" ? "rejected" : "running",
      ...(a.observation ? { ok: a.observation.ok, observation: a.observation.text } : {}),
      ...(a.observation?.runId ? { runId: a.observation.runId } : {}),
      permissions: [],
    })),
  };
}
