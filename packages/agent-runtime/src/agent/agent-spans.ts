import { context, trace } from "@opentelemetry/api";
import { endFailed, GEN_AI, WEFT, type Tracing } from "../tracing/index.ts";

/** What a step or tool call ended with, as the span records it. */
interface Ended {
  status: string;
  error?: { code: string; message: string };
}

/**
 * One step of an agent's loop as an `invoke_agent <agent>` span (GenAI conventions): its deliberation run, LLM call
 * and tool calls nest under it, as they run in its context.
 */
export async function traceAgentStep<T extends Ended>(
  tracing: Tracing,
  env: { agentId: string; conversationId: string; profile: { id: string; name: string } },
  step: number,
  body: () => Promise<T>,
): Promise<T> {
  const span = tracing.tracer.startSpan(`invoke_agent ${env.profile.name}`, {
    attributes: {
      [GEN_AI.operation]: "invoke_agent",
      [GEN_AI.agentName]: env.profile.name,
      [GEN_AI.agentId]: env.profile.id,
      [GEN_AI.conversationId]: env.conversationId,
      [WEFT.agentId]: env.agentId,
      [WEFT.step]: step,
    },
  });
  const result = await context.with(trace.setSpan(context.active(), span), body);
  span.setAttribute(WEFT.status, result.status);
  if (result.error) endFailed(span, result.error.code, result.error.message);
  else span.end();
  return result;
}

/** An agent's tool or skill call as an `execute_tool <tool>` span; the run that executes it nests under it. */
export async function traceToolCall<T extends Ended & { ok: boolean; runId?: string }>(
  tracing: Tracing,
  call: { toolId: string; toolKind: string; toolName: string },
  body: () => Promise<T>,
): Promise<T> {
  const span = tracing.tracer.startSpan(`execute_tool ${call.toolName}`, {
    attributes: {
      [GEN_AI.operation]: "execute_tool",
      [GEN_AI.toolName]: call.toolName,
      [GEN_AI.toolType]: "function",
      "weft.tool.id": call.toolId,
      "weft.tool.kind": call.toolKind,
    },
  });
  const outcome = await context.with(trace.setSpan(context.active(), span), body);
  if (outcome.runId !== undefined) span.setAttribute(WEFT.runId, outcome.runId);
  span.setAttribute(WEFT.status, outcome.status);
  if (!outcome.ok && outcome.error) endFailed(span, outcome.error.code, outcome.error.message);
  else span.end();
  return outcome;
}
