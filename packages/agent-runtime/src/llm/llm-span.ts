import { context, SpanKind, trace, type Span } from "@opentelemetry/api";
import type { LlmCaller, LlmChatRequest, LlmChatResult, LlmProfile } from "@weft/types";
import { endThrown, GEN_AI, WEFT, type Tracing } from "../tracing/index.ts";

/** Hosts whose provider the GenAI conventions name; anything else speaks the OpenAI wire protocol, so it is `openai`. */
const KNOWN_PROVIDERS: readonly [suffix: string, name: string][] = [
  ["api.openai.com", "openai"],
  [".openai.azure.com", "azure.ai.openai"],
  ["api.deepseek.com", "deepseek"],
  ["anthropic.com", "anthropic"],
  ["generativelanguage.googleapis.com", "gcp.gemini"],
  ["api.mistral.ai", "mistral_ai"],
  ["api.groq.com", "groq"],
  ["api.x.ai", "x_ai"],
  ["api.perplexity.ai", "perplexity"],
];

interface Provider {
  provider: string;
  host: string | undefined;
  port: number | undefined;
}

/** Per base URL: a process has a handful of profiles, and parsing a URL on every call is wasted work. */
const providers = new Map<string, Provider>();

function providerOf(baseUrl: string): Provider {
  let known = providers.get(baseUrl);
  if (!known) {
    if (providers.size >= 256) providers.clear();
    known = providerName(baseUrl);
    providers.set(baseUrl, known);
  }
  return known;
}

function providerName(baseUrl: string): Provider {
  let url: URL | undefined;
  try {
    url = new URL(baseUrl);
  } catch {
    return { provider: "openai", host: undefined, port: undefined };
  }
  // Only the host and port: a base URL may carry credentials in its user part.
  const host = url.hostname;
  const known = KNOWN_PROVIDERS.find(([suffix]) => host === suffix || host.endsWith(suffix.startsWith(".") ? suffix : "." + suffix));
  return { provider: known?.[1] ?? "openai", host, port: url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80 };
}

/**
 * Runs one LLM call inside its span (`chat <model>`, GenAI conventions): the request's model and parameters, who called
 * (run, node, agent, scene), and on the answer the response model, finish reason, tokens and cost. Contents only when
 * the operator opted in (`Tracing.content`, which redacts).
 */
export async function traceLlmCall(tracing: Tracing, profile: LlmProfile, request: Omit<LlmChatRequest, "profileId">, caller: LlmCaller, call: () => Promise<LlmChatResult>): Promise<LlmChatResult> {
  const { provider, host, port } = providerOf(profile.baseUrl);
  const span = tracing.tracer.startSpan(`chat ${profile.model}`, {
    kind: SpanKind.CLIENT,
    // An undefined value is no attribute: the tracer drops it.
    attributes: {
      [GEN_AI.operation]: "chat",
      [GEN_AI.provider]: provider,
      [GEN_AI.requestModel]: profile.model,
      [GEN_AI.maxTokens]: request.maxTokens,
      [GEN_AI.temperature]: request.temperature ?? profile.temperature,
      "server.address": host,
      "server.port": port,
      [WEFT.profileId]: profile.id,
      [WEFT.runId]: caller.runId,
      [WEFT.nodeId]: caller.nodeId,
      [WEFT.invocationId]: caller.invocationId,
      [WEFT.agentId]: caller.agentId,
      [GEN_AI.conversationId]: caller.conversationId,
      [WEFT.sceneId]: caller.sceneId,
    },
  });
  // Contents are built only for a span that is recorded (a caller's unsampled trace costs nothing).
  if (tracing.content && span.isRecording()) span.setAttribute(GEN_AI.inputMessages, tracing.content(request.messages));
  let result: LlmChatResult;
  try {
    result = await context.with(trace.setSpan(context.active(), span), call);
  } catch (error) {
    endThrown(span, error);
    throw error;
  }
  recordAnswer(span, tracing, result);
  span.end();
  return result;
}

function recordAnswer(span: Span, tracing: Tracing, result: LlmChatResult): void {
  if (!span.isRecording()) return;
  span.setAttributes({
    [GEN_AI.responseModel]: result.model,
    [GEN_AI.finishReasons]: [result.finishReason],
    [GEN_AI.inputTokens]: result.usage?.promptTokens,
    [GEN_AI.outputTokens]: result.usage?.completionTokens,
    [GEN_AI.cacheReadTokens]: result.usage?.cachedTokens,
    [WEFT.estimated]: result.usage?.estimated,
    [WEFT.costUsd]: result.costUsd,
  });
  if (tracing.content && span.isRecording()) span.setAttribute(GEN_AI.outputMessages, tracing.content([result.message]));
}
