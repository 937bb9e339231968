import type { AgentActionTrace, AgentParseOutcome, ApprovalRequest } from "@weft/types";
import { formatObservation, type CallResult, type ErrorResult } from "../action/index.ts";
import { newRunId } from "../engine/run-id.ts";
import { safeJson } from "../action/json.ts";
import { approvalRequestOf, isAskApproval } from "./ask-approval.ts";
import { isAskUser } from "./ask-user.ts";
import type { ObservationEntry, PlannedAction } from "./protocol.ts";
import type { StepEnvironment } from "./step-environment.ts";

export interface PendingQuestion {
  question: string;
  callId?: string;
  toolName: string;
  /** An `ask_approval` call's request: an approval's decision answers it, not the user's message. */
  approval?: ApprovalRequest;
}

/** A failing action, for the mistake tracker. */
export interface ActionFailure {
  signature: string;
  what: string;
}

export interface ActionsOutcome {
  traces: AgentActionTrace[];
  /** In call order; the waiting `ask_user` call has none until the user replies. */
  observations: ObservationEntry[];
  /** For each trace, the index of its observation (none for the waiting `ask_user` call). */
  observationOf: Array<number | undefined>;
  question?: PendingQuestion;
  failures: ActionFailure[];
  cancelled: boolean;
  /** Traces whose `agent.observation` event is due once the step's mistakes are counted (see emitObservations). */
  observed: number[];
}

const WAITING_NOTE = "Not executed: an earlier call in this turn asks the user, and the run waits for the reply. Call this again once you have it, if it is still needed.";
const WAITING_APPROVAL_NOTE = "Not executed: an earlier call in this turn asks for an approval, and the run waits for the decision. Call this again once approved, if it is still needed.";
const CANCELLED_NOTE = "Not executed: the run was cancelled.";

function parseOutcome(parsed: CallResult | ErrorResult): AgentParseOutcome {
  if (parsed.kind === "call") return { kind: "call", toolId: parsed.toolId, toolKind: parsed.toolKind, toolName: parsed.toolName, params: parsed.params, notes: parsed.notes };
  return {
    kind: "error",
    code: parsed.code,
    message: parsed.message,
    ...(parsed.toolId !== undefined ? { toolId: parsed.toolId } : {}),
    ...(parsed.line !== undefined ? { line: parsed.line } : {}),
    ...(parsed.column !== undefined ? { column: parsed.column } : {}),
  };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/**
 * Runs a step's actions in call order (seed 000 §3.2): refused ones get their parse Observation,
 * valid ones run through the ActionExecutor, `ask_user` stops the rest (they are marked skipped,
 * so every native call still gets its result), and so does a cancellation.
 */
export async function runActions(env: StepEnvironment, step: number, actions: readonly PlannedAction[]): Promise<ActionsOutcome> {
  const out: ActionsOutcome = { traces: [], observations: [], observationOf: [], failures: [], cancelled: false, observed: [] };
  const observe = (entry: ObservationEntry) => {
    out.observationOf[out.traces.length - 1] = out.observations.length;
    out.observations.push(entry);
  };
  let acting = false;
  for (const action of actions) {
    const startedAt = Date.now();
    const parse = parseOutcome(action.parsed);
    const callId = action.callId !== undefined ? { callId: action.callId } : {};
    const toolName = action.parsed.kind === "call" ? action.parsed.toolName : (env.manifest.getById(action.parsed.toolId ?? "")?.name ?? "action");
    const stopped = out.question ? (out.question.approval ? WAITING_APPROVAL_NOTE : WAITING_NOTE) : out.cancelled || env.signal.aborted ? CANCELLED_NOTE : undefined;
    if (stopped) {
      out.cancelled ||= stopped === CANCELLED_NOTE;
      out.traces.push({ ...callId, parse, status: "skipped", ok: false, observation: stopped, permissions: [], startedAt, durationMs: 0 });
      observe({ ...callId, toolName, observation: stopped });
      continue;
    }
    if (action.parsed.kind === "error") {
      const observation = withNote(formatObservation(action.parsed), action.note);
      env.events.emit({ type: "agent.action.rejected", agentId: env.agentId, step, code: action.parsed.code, message: action.parsed.message });
      out.observed.push(out.traces.length);
      out.traces.push({ ...callId, parse, status: "rejected", ok: false, observation, permissions: [], startedAt, durationMs: 0 });
      observe({ ...callId, toolName, observation });
      const message = action.parsed.message.replace(/\b(line|column)\s+\d+/gi, "$1");
      out.failures.push({
        signature: `reject:${action.parsed.code}:${action.parsed.toolId ?? ""}:${message}`,
        what: `an action refused as ${action.parsed.code} (${clip(action.parsed.message, 160)})`,
      });
      continue;
    }
    const call = action.parsed;
    env.events.emit({ type: "agent.action.parsed", agentId: env.agentId, step, toolId: call.toolId, params: call.params, notes: call.notes });
    if (isAskUser(call)) {
      out.question = { question: String(call.params.question ?? ""), toolName: call.toolName, ...callId };
      out.traces.push({ ...callId, parse, status: "waiting_user", ok: true, observation: "", permissions: [], startedAt, durationMs: 0 });
      continue;
    }
    if (isAskApproval(call)) {
      const asked = env.approvalsRefused !== undefined ? undefined : approvalRequestOf(call.params);
      if (asked?.ok) {
        out.question = { question: asked.request.question, toolName: call.toolName, approval: asked.request, ...callId };
        out.traces.push({ ...callId, parse, status: "waiting_approval", ok: true, observation: "", permissions: [], startedAt, durationMs: 0 });
        continue;
      }
      // Refused by the host (nothing could continue after a decision) or invalid parameters: the model is told, nothing waits.
      const problem = asked ? `ask_approval was not asked (${asked.problem}). Fix the parameters and call it again.` : (env.approvalsRefused ?? "");
      const observation = withNote(`Error: ${problem}`, action.note);
      out.observed.push(out.traces.length);
      out.traces.push({ ...callId, parse, status: "failed", ok: false, observation, permissions: [], startedAt, durationMs: 0 });
      observe({ ...callId, toolName: call.toolName, observation });
      out.failures.push({
        signature: `call:${call.toolId}:${safeJson(call.params)}:${asked ? "INVALID" : "UNAVAILABLE"}`,
        what: `the call \`${call.toolName}\` (${asked ? "invalid parameters" : "not available here"})`,
      });
      continue;
    }
    if (!acting) {
      acting = true;
      env.events.emit({ type: "agent.step", agentId: env.agentId, step, phase: "acting" });
    }
    const runId = newRunId();
    env.permissions.begin();
    const journal = env.actions?.begin({ toolId: call.toolId, params: call.params });
    const result =
      journal?.recorded ??
      (await env.executor.execute(call, {
        runId,
        signal: env.signal,
        services: env.services,
        resultKey: action.callId ?? runId,
        ...(env.onRunEvent ? { onEvent: env.onRunEvent } : {}),
      }));
    if (!journal?.recorded) journal?.completed(result);
    const permissions = env.permissions.end();
    const observation = withNote(result.observation, action.note);
    out.observed.push(out.traces.length);
    const status = result.status === "completed" ? (result.ok ? "completed" : "failed") : result.status;
    out.traces.push({
      ...callId,
      parse,
      status,
      ok: result.ok,
      ...(result.runId ? { runId: result.runId } : {}),
      ...(result.error ? { error: result.error } : {}),
      observation,
      ...(result.fullResultRef ? { fullResultRef: result.fullResultRef } : {}),
      permissions,
      startedAt: result.startedAt,
      durationMs: result.durationMs,
    });
    observe({
      ...callId,
      toolName: call.toolName,
      observation,
      durationMs: result.durationMs,
      ...(result.runId ? { runId: result.runId } : {}),
      ...(result.fullResultRef ? { fullResultRef: result.fullResultRef } : {}),
    });
    if (result.status === "cancelled" || env.signal.aborted) out.cancelled = true;
    else if (!result.ok) {
      const code = result.error?.code ?? "FAILED";
      out.failures.push({ signature: `call:${call.toolId}:${safeJson(call.params)}:${code}`, what: `the call \`${call.toolName}\` ${clip(safeJson(call.params), 160)} (failing with ${code})` });
    }
  }
  return out;
}

/**
 * The `agent.observation` events of a step's actions, in call order, sent once the observations are
 * final (a repeated mistake gets a firmer text), so what is shown is exactly what the model gets.
 */
export function emitObservations(env: StepEnvironment, step: number, acted: ActionsOutcome): void {
  for (const i of acted.observed) {
    const t = acted.traces[i]!;
    env.events.emit({ type: "agent.observation", agentId: env.agentId, step, text: t.observation, ok: t.ok, ...(t.runId ? { runId: t.runId } : {}) });
  }
}

function withNote(observation: string, note: string | undefined): string {
  return note ? `${observation}\n${note}` : observation;
}
