import {
  LLM_ERROR_CODES,
  type AgentActionTrace,
  type AgentStatus,
  type AgentStepTrace,
  type ConversationAssistantMessage,
  type ConversationMessage,
  type LlmErrorCode,
  type NodeError,
  messageOf,
} from "@weft/types";
import { assistantMessage, conversationHistory, llmErrorMessage, userMessage, withStepTrace, type MessageMeta } from "../conversation/index.ts";
import { newRunId } from "../engine/run-id.ts";
import { buildAgentContext } from "./agent-context.ts";
import { traceAgentStep } from "./agent-spans.ts";
import type { LlmOutput } from "./deliberation.ts";
import { agentError, type AgentError } from "./errors.ts";
import { MAX_CONTINUATIONS, type LoopMemory } from "./loop-memory.ts";
import { emitObservations, runActions, type ActionFailure, type ActionsOutcome, type PendingQuestion } from "./step-actions.ts";
import type { StepEnvironment } from "./step-environment.ts";

export interface StepResult {
  trace: AgentStepTrace;
  /** `running` when the loop should go on. */
  status: AgentStatus;
  reason?: string;
  /** The final answer (status `completed`), or what there is of one cut off at the output limit. */
  text?: string;
  question?: PendingQuestion;
  error?: AgentError;
}

const EMPTY_REPLY = "Observation: Error (EMPTY_REPLY) - Your reply was empty: no text and no action. Answer in plain text, or call one tool or skill.";

const CONTINUE =
  "Observation: Your reply was cut off at the output limit (finish_reason: length) before it was complete. Continue exactly where it stopped, without repeating what you already wrote, and keep the rest short.";

const LLM_CODES: ReadonlySet<string> = new Set(LLM_ERROR_CODES);

/**
 * One step of the loop (seed 004 §3.3): build the context, run the deliberation workflow, read
 * its output under the agent's protocol, run the actions, and record the step (trace, assistant
 * message and observations) in the conversation log. Never throws.
 */
export async function runAgentStep(env: StepEnvironment, step: number, memory: LoopMemory): Promise<StepResult> {
  const tracing = env.engine.tracing;
  return tracing ? traceAgentStep(tracing, env, step, () => stepOf(env, step, memory)) : stepOf(env, step, memory);
}

async function stepOf(env: StepEnvironment, step: number, memory: LoopMemory): Promise<StepResult> {
  const startedAt = Date.now();
  const t0 = performance.now();
  const meta: MessageMeta = { mode: "agent", agentId: env.agentId };
  env.events.emit({ type: "agent.step", agentId: env.agentId, step, phase: "deliberating" });

  let history: ConversationMessage[];
  try {
    history = await conversationHistory(env.conversations, env.conversationId);
  } catch (error) {
    return failedBeforeDeliberation(env, step, startedAt, agentError("CONVERSATION_FAILED", `The conversation log could not be read: ${messageOf(error)}`));
  }
  const privateState = env.services.privateState?.snapshot() ?? {};
  const world = env.services.world?.snapshot();
  const { inputs } = buildAgentContext({
    protocol: env.profile.protocol,
    manifest: env.manifest,
    persona: env.profile.persona,
    history,
    privateState,
    ...(world !== undefined ? { world } : {}),
    ...env.context,
  });
  const runId = newRunId();
  const outcome = await env.deliberation.run(env.engine, inputs, { runId, signal: env.signal, services: env.services, ...(env.onRunEvent ? { onEvent: env.onRunEvent } : {}) });
  const deliberation = { runId, status: outcome.ok ? ("completed" as const) : outcome.status, durationMs: outcome.durationMs, ...(outcome.ok ? {} : { error: outcome.error }) };
  const output: LlmOutput = outcome.ok ? outcome.output : outcome.partial;
  const trace = (fields: Pick<AgentStepTrace, "responseText" | "notes" | "actions" | "mistakes" | "status"> & { reason?: string }): AgentStepTrace => ({
    step,
    agentId: env.agentId,
    conversationId: env.conversationId,
    protocol: env.profile.protocol,
    startedAt,
    durationMs: performance.now() - t0,
    deliberation,
    output: { text: output.text, ...(output.reasoning ? { reasoning: output.reasoning } : {}), toolCalls: output.toolCalls, ...(output.finishReason ? { finishReason: output.finishReason } : {}) },
    ...fields,
  });
  const noMistakes = { consecutive: 0, identical: 0 };

  if (!outcome.ok) {
    const cancelled = outcome.status === "cancelled" || env.signal.aborted;
    const error = cancelled ? undefined : deliberationError(outcome.error, env.profile.deliberationWorkflowId, output.text);
    const reason = cancelled ? "The run was cancelled while the LLM was answering." : error!.message;
    // A refused budget ends the conversation with its own status: the user raises the budget, not a fix of the workflow.
    const status = cancelled ? "cancelled" : outcome.error.code === "BUDGET_EXCEEDED" ? "budget_exceeded" : "failed";
    const t = trace({ responseText: output.text, notes: [], actions: [], mistakes: noMistakes, status, reason });
    const entry = failedCallEntry(outcome.error, output, cancelled, { ...meta, runId });
    return finish(env, step, { trace: t, status: t.status, reason, ...(error ? { error } : {}) }, [withStepTrace(entry, t)]);
  }

  env.events.emit({
    type: "agent.llm.output",
    agentId: env.agentId,
    step,
    text: output.text,
    runId,
    ...(output.reasoning ? { reasoning: output.reasoning } : {}),
    ...(output.finishReason ? { finishReason: output.finishReason } : {}),
  });
  const read = env.protocol.read(output, env.manifest);
  const assistant = assistantMessage(
    { text: read.keptText ?? output.text, toolCalls: env.profile.protocol === "openai-tools" ? output.toolCalls : [], ...(output.reasoning ? { reasoning: output.reasoning } : {}) },
    { ...meta, runId },
  );
  const cutOff = output.finishReason === "length" && output.toolCalls.length === 0 && (read.actions.length === 0 || read.callAsText);
  const repeatedCallAsText = read.callAsText && memory.refusedCallAsText;
  memory.refusedCallAsText = read.callAsText && !repeatedCallAsText && !cutOff;

  if (cutOff) {
    memory.keepCut(read.responseText.trim(), output.text);
    if (memory.continuations > MAX_CONTINUATIONS) {
      const text = memory.answer("", "");
      const error = agentError(
        "ANSWER_CUT_OFF",
        `The model's answer was cut off at its output limit ${memory.continuations} times in a row (finish_reason: length); the loop stopped with the partial answer.`,
        "Raise the output limit (max tokens) of the deliberation's LLM call, or ask for a shorter answer.",
        { continuations: memory.continuations - 1 },
      );
      const t = trace({ responseText: read.responseText, notes: read.notes, actions: [], mistakes: noMistakes, status: "cut_off", reason: error.message });
      return finish(env, step, { trace: t, status: "cut_off", reason: error.message, text, error }, [withStepTrace(assistant, t)]);
    }
    env.events.emit({ type: "agent.observation", agentId: env.agentId, step, text: CONTINUE, ok: false });
    const t = trace({
      responseText: read.responseText,
      notes: [...read.notes, `The reply was cut off at the output limit; the model was asked to continue (${memory.continuations} of ${MAX_CONTINUATIONS}).`],
      actions: [],
      mistakes: noMistakes,
      status: "running",
    });
    return finish(env, step, { trace: t, status: "running" }, [withStepTrace(assistant, t), userMessage(CONTINUE, meta)]);
  }

  if (read.actions.length === 0 || repeatedCallAsText) {
    if (read.responseText.trim() !== "") {
      const notes = repeatedCallAsText ? [...read.notes, "Taken as the answer: the model sent a call written as text again after being told it was not run."] : read.notes;
      const text = memory.answer(read.responseText.trim(), output.text);
      memory.dropCut();
      const t = trace({ responseText: read.responseText, notes, actions: [], mistakes: noMistakes, status: "completed" });
      return finish(env, step, { trace: t, status: "completed", text }, [withStepTrace(assistant, t)]);
    }
    env.events.emit({ type: "agent.action.rejected", agentId: env.agentId, step, code: "EMPTY_REPLY", message: EMPTY_REPLY });
    const verdict = memory.mistakes.record("EMPTY_REPLY", "an empty reply");
    const observation = verdict.kind === "mistake" && verdict.firmer ? `${EMPTY_REPLY}\n${verdict.firmer}` : EMPTY_REPLY;
    env.events.emit({ type: "agent.observation", agentId: env.agentId, step, text: observation, ok: false });
    const action: AgentActionTrace = {
      parse: { kind: "error", code: "EMPTY_REPLY", message: EMPTY_REPLY },
      status: "rejected",
      ok: false,
      observation,
      permissions: [],
      startedAt: Date.now(),
      durationMs: 0,
    };
    const status = verdict.kind === "stuck" ? "stuck" : "running";
    const t = trace({
      responseText: "",
      notes: read.notes,
      actions: [action],
      mistakes: { consecutive: verdict.consecutive, identical: verdict.identical },
      status,
      ...(verdict.kind === "stuck" ? { reason: verdict.reason } : {}),
    });
    return finish(env, step, { trace: t, status, ...(verdict.kind === "stuck" ? { reason: verdict.reason } : {}) }, [withStepTrace(assistant, t), userMessage(observation, meta)]);
  }

  memory.dropCut();
  const acted = await runActions(env, step, read.actions);
  const verdict = memory.mistakes.record(signatureOf(acted.failures), acted.failures.map((f) => f.what).join("; "));
  if (verdict.kind === "mistake" && verdict.firmer) firmUp(acted, verdict.firmer);
  emitObservations(env, step, acted);
  const status: AgentStatus = acted.cancelled ? "cancelled" : verdict.kind === "stuck" ? "stuck" : acted.question ? (acted.question.approval ? "waiting_approval" : "waiting_user") : "running";
  const reason = status === "cancelled" ? "The run was cancelled while an action ran." : verdict.kind === "stuck" ? verdict.reason : undefined;
  const t = trace({
    responseText: read.responseText,
    notes: read.notes,
    actions: acted.traces,
    mistakes: { consecutive: verdict.consecutive, identical: verdict.identical },
    status,
    ...(reason ? { reason } : {}),
  });
  const entries = [withStepTrace(assistant, t), ...env.protocol.observationEntries(acted.observations, meta)];
  return finish(env, step, { trace: t, status, ...(reason ? { reason } : {}), ...(acted.question ? { question: acted.question } : {}) }, entries);
}

/** Appends the step's entries (one batch: all or nothing) and closes the step's events. */
async function finish(env: StepEnvironment, step: number, result: StepResult, entries: ConversationMessage[]): Promise<StepResult> {
  try {
    await env.conversations.append(env.conversationId, entries);
  } catch (error) {
    const failure = agentError("CONVERSATION_FAILED", `Step ${step} could not be written to the conversation log: ${messageOf(error)}`);
    env.events.emit({ type: "agent.step", agentId: env.agentId, step, phase: "done" });
    return { ...result, trace: { ...result.trace, status: "failed", reason: failure.message }, status: "failed", reason: failure.message, error: failure };
  }
  env.events.emit({ type: "agent.step", agentId: env.agentId, step, phase: "done" });
  return result;
}

function failedBeforeDeliberation(env: StepEnvironment, step: number, startedAt: number, error: AgentError): StepResult {
  env.events.emit({ type: "agent.step", agentId: env.agentId, step, phase: "done" });
  const trace: AgentStepTrace = {
    step,
    agentId: env.agentId,
    conversationId: env.conversationId,
    protocol: env.profile.protocol,
    startedAt,
    durationMs: Date.now() - startedAt,
    deliberation: { runId: "", status: "failed", durationMs: 0, error: { code: error.code, message: error.message } },
    output: { text: "", toolCalls: [] },
    responseText: "",
    notes: [],
    actions: [],
    mistakes: { consecutive: 0, identical: 0 },
    status: "failed",
    reason: error.message,
  };
  return { trace, status: "failed", reason: error.message, error };
}

function signatureOf(failures: readonly ActionFailure[]): string | undefined {
  return failures.length === 0 ? undefined : failures.map((f) => f.signature).join("\n");
}

/** The firmer message goes after the observation of the last failing action. */
function firmUp(acted: ActionsOutcome, firmer: string): void {
  for (let i = acted.traces.length - 1; i >= 0; i--) {
    const t = acted.traces[i]!;
    if (t.ok || t.status === "skipped" || t.status === "waiting_user" || t.status === "waiting_approval") continue;
    t.observation = `${t.observation}\n${firmer}`;
    const at = acted.observationOf[i];
    if (at !== undefined) acted.observations[at]!.observation = t.observation;
    return;
  }
}

function llmCode(error: NodeError): LlmErrorCode | undefined {
  return LLM_CODES.has(error.code) ? (error.code as LlmErrorCode) : undefined;
}

/** The LLM's advice on fixing a failed call, carried in the failed node's details. */
function causeHint(error: NodeError): string | undefined {
  const hint = (error.details?.cause as { hint?: unknown } | undefined)?.hint;
  return typeof hint === "string" ? hint : undefined;
}

function deliberationError(error: NodeError, workflowId: string, partialText: string): AgentError {
  const cause = (error.details?.cause ?? {}) as { profileId?: unknown };
  const code = llmCode(error);
  if (code) {
    const hint = causeHint(error);
    const partial = partialText !== "" ? { partialText } : {};
    return agentError("LLM_FAILED", `The LLM call failed (${code}): ${providerSaid(error.message, hint)}`, hint, {
      llmCode: code,
      workflowId,
      ...partial,
      ...(typeof cause.profileId === "string" ? { profileId: cause.profileId } : {}),
    });
  }
  return agentError("DELIBERATION_FAILED", `The deliberation workflow "${workflowId}" failed (${error.code}): ${error.message}`, "Open the deliberation run to see which node failed and why.", {
    nodeErrorCode: error.code,
    workflowId,
  });
}

/**
 * The LLM's own message, without what the layers between added on the way: the engine's
 * `node "llm" failed:`, the node's `LLM call failed:` and the hint (given once, as the hint).
 */
function providerSaid(message: string, hint: string | undefined): string {
  const bare = message.replace(/^node "[^"]*" failed: /, "").replace(/^LLM call failed: /, "");
  return hint && bare.endsWith(` ${hint}`) ? bare.slice(0, -hint.length - 1) : bare;
}

/**
 * The assistant entry of a failed deliberation (seed 003 §4.3.4): an LLM failure keeps its partial
 * output and error for the next request to continue from; with nothing streamed, or for any other
 * failure, the entry only carries the trace for the UI.
 */
function failedCallEntry(error: NodeError, partial: LlmOutput, cancelled: boolean, meta: MessageMeta): ConversationAssistantMessage {
  const code: LlmErrorCode | undefined = cancelled ? "CANCELLED" : llmCode(error);
  const hint = causeHint(error) ?? "Run the agent again to retry.";
  const visible = partial.text !== "";
  if (!code) return { ...assistantMessage({ text: partial.text, toolCalls: [] }, meta), includeInContext: false };
  return llmErrorMessage(
    { code, message: error.message, hint, ...(visible ? { partialText: partial.text } : {}), ...(partial.reasoning ? { partialReasoning: partial.reasoning } : {}) },
    { ...meta, ...(visible ? {} : { includeInContext: false }) },
  );
}
