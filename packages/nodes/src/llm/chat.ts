import { FunctionToolSchema, LlmError, NodeFailure, type ChatMessage, type LlmChatRequest, type LlmChatResult, type LlmStreamChunk, type NodeContext, type NodeValues } from "@weft/types";
import { z } from "zod";
import { defineNode } from "../define-node.ts";
import { readMessages } from "../support/chat-messages.ts";

const ToolsSchema = z.array(FunctionToolSchema);
const CALLER_MODEL_CHOICES = ["no", "preferred", "required"] as const;

export const llmChat = defineNode(
  {
    type: "llm:chat",
    title: "LLM chat",
    description:
      "Sends a conversation to an LLM (any OpenAI-compatible provider, through an LLM profile) and streams the answer as it is written. Give `messages`, or a `system` prompt and a `prompt`, or both: the system prompt goes first, the prompt last as a user message. With `tools` (OpenAI function tools) the model may answer with tool calls instead of text.",
    category: "llm",
    inputs: [
      { id: "messages", type: "messages", label: "Messages", description: "The conversation so far (system, user, assistant with tool_calls, tool results)." },
      { id: "system", type: "string", multiline: true, label: "System prompt", description: "Put before the messages as a system message." },
      { id: "prompt", type: "string", multiline: true, label: "Prompt", description: "Put after the messages as the user's message." },
      {
        id: "tools",
        type: "json",
        label: "Tools",
        description: 'OpenAI function tools the model may call: [{"type": "function", "function": {"name", "description", "parameters": <JSON Schema>}}].',
      },
    ],
    outputs: [
      { id: "text", type: "string", label: "Text", description: "The answer's text (empty when the model only called tools)." },
      { id: "reasoning", type: "string", label: "Reasoning", description: "The model's reasoning, for providers that send it (DeepSeek); never part of the text." },
      { id: "toolCalls", type: "array", label: "Tool calls", description: 'Complete tool calls: [{id, type: "function", function: {name, arguments}}].' },
      {
        id: "usage",
        type: "json",
        label: "Usage",
        description:
          "{promptTokens, completionTokens, totalTokens, cachedTokens?, reasoningTokens?, estimated?, costUsd?, source?}: as the provider reported them, or estimated (estimated: true) when it did not; costUsd at the profile's prices, absent when they are unknown; source \"client\" when the calling MCP client's model answered (0 tokens and cost to Weft).",
      },
      { id: "finishReason", type: "string", label: "Finish reason", description: "stop, length, tool_calls, content_filter, …" },
      { id: "message", type: "json", label: "Assistant message", description: "The answer as an assistant message, ready to append to a conversation." },
      { id: "messages", type: "messages", label: "Conversation", description: "The messages sent, followed by the answer." },
      { id: "raw", type: "json", label: "Raw response", description: "The provider's response as received (the assembled stream), for debugging." },
    ],
    config: [
      { id: "profileId", kind: "text", default: "", label: "LLM profile", description: "Which LLM profile to use; empty for the default one." },
      { id: "model", kind: "text", default: "", label: "Model", description: "Overrides the profile's model; empty to keep it." },
      { id: "temperature", kind: "number", min: 0, max: 2, label: "Temperature", description: "0 for focused answers, higher for varied ones; empty for the profile's setting." },
      { id: "maxTokens", kind: "integer", min: 1, label: "Max tokens", description: "Longest answer allowed, in tokens; empty for the provider's limit." },
      {
        id: "callerModel",
        kind: "select",
        options: [...CALLER_MODEL_CHOICES],
        default: "no",
        label: "Caller's model",
        description:
          "When the skill is called through /mcp by a client that offers sampling, let that client's model answer (at the client's cost; no tools): no = always the LLM profile, preferred = the client's model when offered and the profile otherwise, required = fail (CALLER_MODEL_UNAVAILABLE) when not offered.",
      },
    ],
    flags: { idempotent: false, streaming: true },
  },
  chat,
);

/** The shortest time between two chunks of a reply: 20 a second keeps a live view fluid. */
const CHUNK_INTERVAL_MS = 50;

async function* chat(inputs: NodeValues, ctx: NodeContext): AsyncGenerator<string, NodeValues, void> {
  // Input mistakes are reported first, even where no LLM is configured.
  const request = buildRequest(inputs, ctx.config);
  const llm = ctx.services.llm;
  if (!llm) {
    throw new NodeFailure(
      "MISSING_SERVICE",
      "llm:chat needs the LLM service (ctx.services.llm), which the server provides from its LLM profiles. Run the workflow from the editor, the CLI or an agent, where it is configured.",
      { service: "llm" },
    );
  }

  // Chunks arrive on the provider's schedule; they are queued and yielded as the engine pulls.
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  /** Set while a chunk waits out the interval: new text joins it, only the end of the reply cuts the wait short. */
  let pacing = false;
  let settled = false;
  let result: LlmChatResult | undefined;
  let failure: unknown;
  const onChunk = (chunk: LlmStreamChunk) => {
    if (chunk.kind !== "text" || chunk.text === "") return;
    queue.push(chunk.text);
    if (!pacing) wake?.();
  };
  void llm
    .chat(request, { signal: ctx.signal, onChunk, caller: { runId: ctx.runId, nodeId: ctx.nodeId, invocationId: ctx.invocationId } })
    .then(
      (r) => (result = r),
      (e: unknown) => (failure = e),
    )
    .finally(() => {
      settled = true;
      wake?.();
    });

  // Whatever piled up goes out as one chunk, at most one per CHUNK_INTERVAL_MS after the first: a model streams a
  // token every few milliseconds, and each chunk is an event every watcher gets and the run's history stores.
  let lastYield = -Infinity;
  for (;;) {
    const wait = lastYield + CHUNK_INTERVAL_MS - performance.now();
    if (queue.length > 0 && (wait <= 0 || settled)) {
      lastYield = performance.now();
      yield queue.splice(0).join("");
    } else if (queue.length === 0 && settled) break;
    else {
      let timer: ReturnType<typeof setTimeout> | undefined;
      pacing = queue.length > 0;
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (pacing) timer = setTimeout(resolve, wait);
      });
      clearTimeout(timer);
      pacing = false;
    }
    wake = undefined;
  }
  if (failure !== undefined) throw toNodeFailure(failure, request.profileId);
  if (!result) throw new NodeFailure("LLM_ERROR", "The LLM service finished without a result.");
  return {
    text: result.text,
    reasoning: result.reasoning ?? "",
    toolCalls: result.toolCalls,
    usage: usageOutput(result),
    finishReason: result.finishReason,
    message: result.message,
    messages: [...request.messages, result.message],
    raw: result.raw ?? null,
  };
}

function buildRequest(inputs: NodeValues, config: Record<string, unknown>): LlmChatRequest {
  const messages: ChatMessage[] = [];
  if (typeof inputs.system === "string" && inputs.system.trim() !== "") messages.push({ role: "system", content: inputs.system });
  if (inputs.messages !== undefined) messages.push(...readMessages(inputs.messages as unknown[], "messages"));
  if (typeof inputs.prompt === "string" && inputs.prompt.trim() !== "") messages.push({ role: "user", content: inputs.prompt });
  if (!messages.some((m) => m.role !== "system")) {
    throw new NodeFailure("INVALID_INPUT", "llm:chat has nothing to answer: connect `messages` (a conversation with at least one user message) or set `prompt`.", { port: "prompt" });
  }
  const request: LlmChatRequest = { messages };
  if (inputs.tools !== undefined && inputs.tools !== null) {
    const tools = ToolsSchema.safeParse(inputs.tools);
    if (!tools.success) {
      const issue = tools.error.issues[0];
      throw new NodeFailure(
        "INVALID_INPUT",
        `Input "tools" of llm:chat must be a list of OpenAI function tools; at tools.${issue.path.join(".")}: ${issue.message}. Each is {"type": "function", "function": {"name": "...", "parameters": {...}}}.`,
        { port: "tools", path: issue.path.map(String) },
      );
    }
    if (tools.data.length > 0) request.tools = tools.data;
  }
  if (typeof config.profileId === "string" && config.profileId !== "") request.profileId = config.profileId;
  if (typeof config.model === "string" && config.model !== "") request.model = config.model;
  if (typeof config.temperature === "number") request.temperature = config.temperature;
  if (typeof config.maxTokens === "number") request.maxTokens = config.maxTokens;
  if (config.callerModel === "preferred" || config.callerModel === "required") request.callerModel = config.callerModel;
  return request;
}

/** An LLM failure as the node's failure: same code, the hint in the message, partial output in details. */
function toNodeFailure(error: unknown, profileId: string | undefined): unknown {
  if (!(error instanceof LlmError)) return error;
  const details: Record<string, unknown> = { ...error.details, ...(profileId ? { profileId } : {}) };
  return new NodeFailure(error.code, `LLM call failed: ${error.message} ${error.hint}`, details);
}

/** The usage output: the call's tokens with its cost, when the service priced it. */
export function usageOutput(result: LlmChatResult): Record<string, unknown> | null {
  if (!result.usage) return null;
  return { ...result.usage, ...(result.costUsd !== undefined ? { costUsd: result.costUsd } : {}), ...(result.source ? { source: result.source } : {}) };
}
