import { SpanStatusCode, type Span, type Tracer } from "@opentelemetry/api";
import type { ChatMessage } from "@weft/types";

/**
 * What the runtime traces with, handed in by the process that started tracing (the backend reads the `OTEL_*`
 * environment). Absent, nothing is traced and no span object is made: every traced place checks for it first.
 */
export interface Tracing {
  tracer: Tracer;
  /**
   * Prompt and completion contents on LLM spans (`gen_ai.input.messages` / `gen_ai.output.messages`): off unless the
   * operator opted in. When on, it returns the messages as the JSON text to record: secrets already redacted, long
   * texts cut before anything is serialised. Called only for a span that is recorded.
   */
  content?: (messages: readonly ChatMessage[]) => string;
}

/** Weft's own span attributes, beside the OpenTelemetry GenAI semantic conventions (`gen_ai.*`). */
export const WEFT = {
  runId: "weft.run.id",
  workflowId: "weft.workflow.id",
  nodeId: "weft.node.id",
  nodeType: "weft.node.type",
  invocationId: "weft.invocation.id",
  cached: "weft.cached",
  status: "weft.status",
  profileId: "weft.llm.profile.id",
  costUsd: "weft.cost.usd",
  estimated: "weft.usage.estimated",
  agentId: "weft.agent.id",
  conversationId: "weft.conversation.id",
  sceneId: "weft.scene.id",
  step: "weft.agent.step",
} as const;

/** The GenAI semantic conventions' attribute names (https://opentelemetry.io/docs/specs/semconv/gen-ai/) that Weft sets. */
export const GEN_AI = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  maxTokens: "gen_ai.request.max_tokens",
  temperature: "gen_ai.request.temperature",
  finishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  agentName: "gen_ai.agent.name",
  agentId: "gen_ai.agent.id",
  conversationId: "gen_ai.conversation.id",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
} as const;

/** Ends `span` as failed with `code` (also `error.type`, as the conventions ask) and `message`. */
export function endFailed(span: Span, code: string, message: string): void {
  span.setAttribute("error.type", code);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.end();
}

/** Ends `span` after `error`, whatever it is: its `code` when it has one. */
export function endThrown(span: Span, error: unknown): void {
  const own: unknown = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  const code = typeof own === "string" ? own : error instanceof Error ? error.name : "Error";
  endFailed(span, code, error instanceof Error ? error.message : String(error));
}
