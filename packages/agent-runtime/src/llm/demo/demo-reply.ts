import { approxTokens, splitEvenly, splitForStreaming, type WireReply } from "../openai-wire.ts";
import { MANIFEST_HEADER, parseActionManifest } from "./action-manifest.ts";
import { offeredBuilderTools } from "./builder-turn.ts";
import { planBuilderStep } from "./demo-builder.ts";
import { demoJudgeVerdict } from "./demo-judge.ts";
import { messageText, type DemoMessage, type DemoRequest } from "./demo-request.ts";
import { deriveArguments, paramsFromJsonSchema, pickTool, type ParamSpec } from "./tool-match.ts";

/**
 * What the demo LLM says, decided from the request alone (same request, same answer):
 * 0. the Builder's tools offered → the next step of the Builder plan (demo-builder.ts); an eval judge's prompt → its verdict (demo-judge.ts);
 * 1. the latest turn is an observation (a `tool` message, or a user message starting with
 *    `Observation:`) → a final answer built from the observed result;
 * 2. native `tools` offered → a `tool_calls` call of the tool best matching the user's words;
 * 3. an `<ACTION>` tool manifest in the prompt → a short explanation and an `<ACTION>` block;
 * 4. otherwise → a plain reply explaining that this is the offline demo.
 */
export function planDemoReply(request: DemoRequest, replyId: string): WireReply {
  const messages = request.messages;
  const last = messages[messages.length - 1];
  const question = latestQuestion(messages);
  const promptTokens = approxTokens(messages.map(messageText).join("\n"));

  const builderTools = offeredBuilderTools(request);
  if (builderTools) {
    const step = planBuilderStep(messages, builderTools);
    return step.kind === "say" ? textReply(step.text, promptTokens, request) : toolCallsReply(step.calls, replyId, promptTokens);
  }

  const verdict = demoJudgeVerdict(messages);
  if (verdict !== undefined) return textReply(verdict, promptTokens, request);

  if (last && isObservation(last)) return textReply(finalAnswer(messages, question), promptTokens, request);

  const choice = request.tool_choice ?? "auto";
  const tools = choice === "none" ? [] : (request.tools ?? []);
  if (tools.length > 0) {
    const candidates = tools.map((t) => ({ name: t.function.name, description: t.function.description ?? "", params: paramsFromJsonSchema(t.function.parameters) }));
    const forced = typeof choice === "object" ? candidates.find((c) => c.name === choice.function.name) : undefined;
    const tool = forced ?? pickTool(candidates, question) ?? (choice === "required" ? candidates[0] : undefined);
    if (tool) return toolCallsReply([{ name: tool.name, args: deriveArguments(tool.params, question) }], replyId, promptTokens);
  }

  const manifest = findManifest(messages);
  if (manifest && manifest.length > 0) {
    const tool = pickTool(manifest, question);
    if (tool) return textReply(actionAnswer(tool.name, tool.description, tool.params, question), promptTokens, request);
  }
  return textReply(plainAnswer(question), promptTokens, request);
}

/** Tool calls, run in parallel by the caller; ids derive from the reply's id, so they are stable too. */
function toolCallsReply(calls: readonly { name: string; args: Record<string, unknown> }[], replyId: string, promptTokens: number): WireReply {
  const texts = calls.map((c) => JSON.stringify(c.args));
  return {
    contentChunks: [],
    reasoningChunks: [],
    toolCalls: calls.map((c, i) => ({ id: `call_${replyId.replace(/^chatcmpl-/, "")}_${i}`, name: c.name, argumentChunks: splitEvenly(texts[i], 3) })),
    finishReason: "tool_calls",
    usage: { prompt_tokens: promptTokens, completion_tokens: texts.reduce((n, t) => n + approxTokens(t) + 5, 0) },
  };
}

function isObservation(message: DemoMessage): boolean {
  return message.role === "tool" || (message.role === "user" && /^\s*Observation:/i.test(messageText(message)));
}

/** The newest user message that is not an observation. */
function latestQuestion(messages: readonly DemoMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === "user" && !isObservation(messages[i])) return messageText(messages[i]).trim();
  }
  return "";
}

function findManifest(messages: readonly DemoMessage[]) {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== "system" && m.role !== "developer" && m.role !== "user") continue;
    const text = messageText(m);
    if (text.includes(MANIFEST_HEADER)) return parseActionManifest(text);
  }
  return null;
}

function actionAnswer(toolName: string, description: string, params: readonly ParamSpec[], question: string): string {
  const args = deriveArguments(params, question);
  const purpose = description ? ` (${lowerFirst(description.replace(/\.$/, ""))})` : "";
  const lines = Object.entries(args).map(([name, value]) => `        <${name}>${xmlValue(value)}</${name}>`);
  return [`To answer this I will use the \`${toolName}\` tool${purpose}.`, "<ACTION>", `    <${toolName}>`, ...lines, `    </${toolName}>`, "</ACTION>"].join("\n");
}

/** Plain text when it is safe in XML, otherwise CDATA (objects and arrays as JSON). */
function xmlValue(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  if (typeof value === "string" && !/[<>&]/.test(text)) return text;
  return `<![CDATA[${text.replaceAll("]]>", "]]]]><![CDATA[>")}]]>`;
}

/** The observations since the last assistant turn, with the tool each answers when known. */
function finalAnswer(messages: readonly DemoMessage[], question: string): string {
  let start = messages.length;
  while (start > 0 && isObservation(messages[start - 1])) start--;
  const assistant = start > 0 && messages[start - 1].role === "assistant" ? messages[start - 1] : undefined;
  const toolNames = new Map((assistant?.tool_calls ?? []).map((c) => [c.id, c.function.name]));
  const actionTool = assistant ? /<ACTION>\s*<([A-Za-z][A-Za-z0-9_]*)/.exec(messageText(assistant))?.[1] : undefined;

  const parts = messages.slice(start).map((m) => {
    const raw = messageText(m).replace(/^\s*Observation:\s*/i, "");
    const tool = (m.tool_call_id && toolNames.get(m.tool_call_id)) || actionTool || "the tool";
    const failure = observedFailure(raw);
    return failure ? `\`${tool}\` failed: ${failure}` : `\`${tool}\` returned ${summarise(raw)}`;
  });
  const topic = question ? ` for "${clip(question, 120)}"` : "";
  const failed = parts.some((p) => p.includes("` failed: "));
  return failed ? `I could not complete the request${topic}: ${parts.join("; ")}. Please check the input and try again.` : `Here is what I found${topic}: ${parts.join("; ")}.`;
}

/** The error message of a failed ToolResult or an "Error" observation; undefined on success. */
function observedFailure(text: string): string | undefined {
  try {
    const value = JSON.parse(text) as { ok?: unknown; error?: { message?: unknown } };
    if (value && value.ok === false) return typeof value.error?.message === "string" ? value.error.message : "an unknown error";
  } catch {
    // Not JSON: look at the text.
  }
  const m = /^\s*Error\b[\s:-]*(.*)$/is.exec(text);
  return m ? clip(m[1] || text, 300) : undefined;
}

function summarise(text: string): string {
  const trimmed = text.trim().replace(/^Tool \S+ executed successfully\.\s*Result:\s*/i, "");
  try {
    const value = JSON.parse(trimmed) as unknown;
    if (typeof value === "string") return `"${clip(value, 300)}"`;
    if (value && typeof value === "object" && !Array.isArray(value)) {
      const { ok: _ok, ...rest } = value as Record<string, unknown>;
      return clip(JSON.stringify(rest), 300);
    }
    return clip(JSON.stringify(value), 300);
  } catch {
    return `"${clip(trimmed, 300)}"`;
  }
}

function plainAnswer(question: string): string {
  if (question === "") return "Hello! I am Weft's offline demo model. Ask me something, or give me tools to use.";
  return (
    `I am Weft's offline demo model, so I can only echo and use the tools I am given. You said: "${clip(question, 200)}". ` +
    "Add a real OpenAI-compatible provider under Settings → LLM profiles for real answers."
  );
}

function textReply(text: string, promptTokens: number, request: DemoRequest): WireReply {
  const limit = request.max_completion_tokens ?? request.max_tokens ?? undefined;
  const pieces = splitForStreaming(text);
  const truncated = limit !== undefined && pieces.length > limit;
  const contentChunks = truncated ? pieces.slice(0, limit) : pieces;
  return {
    contentChunks,
    reasoningChunks: [],
    toolCalls: [],
    finishReason: truncated ? "length" : "stop",
    usage: { prompt_tokens: promptTokens, completion_tokens: contentChunks.length },
  };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
