import { LlmError, NodeFailure, type ChatMessage, type LlmChatRequest, type LlmChatResult, type LlmService, type NodeContext, type NodeValues, messageOf } from "@weft/types";
import type { ValidateFunction } from "ajv";
import { defineNode } from "../define-node.ts";
import { describeSchemaErrors, schemaValidator } from "../support/json-schema-check.ts";

const MODES = ["auto", "json_schema", "tool", "prompt"] as const;
type Mode = Exclude<(typeof MODES)[number], "auto">;
const TOOL_NAME = "respond";

/** How a mode asks for the JSON: the provider's structured output, a forced tool call, or the prompt. */
function requestFor(mode: Mode, schema: Record<string, unknown>, messages: ChatMessage[], base: Omit<LlmChatRequest, "messages">): LlmChatRequest {
  switch (mode) {
    case "json_schema":
      return { ...base, messages, responseFormat: { type: "json_schema", json_schema: { name: "result", schema } } };
    case "tool":
      return {
        ...base,
        messages,
        tools: [{ type: "function", function: { name: TOOL_NAME, description: "Give the answer as the arguments of this call.", parameters: schema } }],
        toolChoice: { type: "function", function: { name: TOOL_NAME } },
      };
    case "prompt":
      return { ...base, messages: [{ role: "system", content: `Answer with JSON only (no prose, no code fences), valid against this JSON Schema:\n${JSON.stringify(schema)}` }, ...messages] };
    default: {
      const never: never = mode;
      return never;
    }
  }
}

/** The answer's JSON text: the forced tool call's arguments, or the text without code fences. */
function answerText(result: LlmChatResult): string {
  const call = result.toolCalls.find((c) => c.function.name === TOOL_NAME) ?? result.toolCalls[0];
  if (call) return call.function.arguments;
  return result.text
    .trim()
    .replace(/^```(?:json)?\s*\n?([\s\S]*?)\n?```$/i, "$1")
    .trim();
}

/** What was wrong with an answer, in words the model can act on; undefined when it is valid. */
function problemWith(text: string, validate: ValidateFunction): { problem: string } | { value: unknown } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `it is not JSON (${messageOf(error)})` };
  }
  return validate(value) ? { value } : { problem: `it does not match the schema: ${describeSchemaErrors(validate)}` };
}

/** An object answer's properties, each on the output port the schema gives it (see `outputsFromSchema`). */
function propertyOutputs(value: unknown): NodeValues {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? { ...(value as NodeValues) } : {};
}

/** The conversation continued with the invalid answer and what was wrong with it. */
function reask(messages: ChatMessage[], result: LlmChatResult, problem: string): ChatMessage[] {
  const correction = `Your answer was invalid: ${problem}. Answer again with the corrected JSON only.`;
  const call = result.toolCalls[0];
  if (call) return [...messages, result.message, { role: "tool", tool_call_id: call.id, content: correction }];
  return [...messages, result.message, { role: "user", content: correction }];
}

async function structured(inputs: NodeValues, ctx: NodeContext): Promise<NodeValues> {
  const validate = schemaValidator(ctx.config.schema, "schema");
  const schema = ctx.config.schema as Record<string, unknown>;
  const llm: LlmService | undefined = ctx.services.llm;
  if (!llm)
    throw new NodeFailure("MISSING_SERVICE", "llm:structured needs the LLM service (ctx.services.llm), which the server provides from its LLM profiles. Run it from the editor, the CLI or an agent.", {
      service: "llm",
    });
  let messages: ChatMessage[] = [];
  if (typeof inputs.system === "string" && inputs.system.trim() !== "") messages.push({ role: "system", content: inputs.system });
  messages.push({ role: "user", content: String(inputs.prompt) });
  const base: Omit<LlmChatRequest, "messages"> = {
    ...(ctx.config.profileId ? { profileId: String(ctx.config.profileId) } : {}),
    ...(ctx.config.model ? { model: String(ctx.config.model) } : {}),
    ...(typeof ctx.config.temperature === "number" ? { temperature: ctx.config.temperature } : {}),
  };
  // `auto` starts with the provider's structured output and steps down when the provider refuses it.
  const modes: Mode[] = ctx.config.mode === "auto" ? ["json_schema", "tool", "prompt"] : [ctx.config.mode as Mode];
  const maxAttempts = Number(ctx.config.maxReasks) + 1;
  let attempts = 0;
  let lastProblem = "";
  let lastText = "";
  while (attempts < maxAttempts) {
    const mode = modes[0];
    let result: LlmChatResult;
    try {
      result = await llm.chat(requestFor(mode, schema, messages, base), { signal: ctx.signal, caller: { runId: ctx.runId, nodeId: ctx.nodeId, invocationId: ctx.invocationId } });
    } catch (error) {
      if (error instanceof LlmError && error.code === "BAD_REQUEST" && modes.length > 1) {
        ctx.log.info(`the provider refused ${mode} output; trying ${modes[1]}`, { error: error.message });
        modes.shift();
        continue;
      }
      if (error instanceof LlmError) throw new NodeFailure(error.code, `LLM call failed: ${error.message} ${error.hint}`, { ...error.details });
      throw error;
    }
    attempts++;
    lastText = answerText(result);
    const checked = problemWith(lastText, validate);
    if ("value" in checked) return { ...propertyOutputs(checked.value), value: checked.value, text: lastText, attempts, mode };
    lastProblem = checked.problem;
    ctx.log.info("the answer was invalid; asking again", { attempt: attempts, problem: lastProblem });
    messages = reask(messages, result, lastProblem);
  }
  throw new NodeFailure(
    "INVALID_LLM_OUTPUT",
    `The LLM gave no valid answer in ${attempts} attempt(s); the last: ${lastProblem}. Simplify the schema, make the prompt clearer, or allow more re-asks.`,
    {
      attempts,
      lastAnswer: lastText.slice(0, 2000),
    },
  );
}

export const llmStructured = defineNode(
  {
    type: "llm:structured",
    title: "LLM structured output",
    description:
      "Asks an LLM for JSON valid against a JSON Schema (set in the node) and gives the parsed value, and each top-level property of the schema on its own typed output. Uses the provider's structured output where it has one, else a forced tool call or the prompt; an invalid answer is sent back to the model with what was wrong, a bounded number of times.",
    category: "llm",
    inputs: [
      { id: "prompt", type: "string", required: true, multiline: true, label: "Prompt", description: "What to answer, as the user's message." },
      { id: "system", type: "string", multiline: true, label: "System prompt", description: "Put before the prompt as a system message." },
    ],
    outputs: [
      { id: "value", type: "json", label: "Value", description: "The parsed answer, valid against the schema." },
      { id: "text", type: "string", label: "JSON text", description: "The answer as the model wrote it." },
      { id: "attempts", type: "integer", label: "Attempts", description: "How many answers it took (1 when the first was valid)." },
      { id: "mode", type: "string", label: "Mode", description: "How the JSON was asked for: json_schema, tool or prompt." },
    ],
    config: [
      {
        id: "schema",
        kind: "json",
        required: true,
        default: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] },
        label: "JSON Schema",
        description: "The schema the answer must be valid against.",
      },
      {
        id: "mode",
        kind: "select",
        options: [...MODES],
        default: "auto",
        label: "Mode",
        description: "auto: the provider's structured output, falling back to a forced tool call, then to the prompt.",
      },
      { id: "maxReasks", kind: "integer", min: 0, max: 5, default: 2, label: "Re-asks", description: "How many times an invalid answer is sent back for correction." },
      { id: "profileId", kind: "text", default: "", label: "LLM profile", description: "Which LLM profile to use; empty for the default one." },
      { id: "model", kind: "text", default: "", label: "Model", description: "Overrides the profile's model; empty to keep it." },
      { id: "temperature", kind: "number", min: 0, max: 2, label: "Temperature", description: "0 for focused answers; empty for the profile's setting." },
    ],
    flags: { outputsFromSchema: "schema" },
  },
  structured,
);
