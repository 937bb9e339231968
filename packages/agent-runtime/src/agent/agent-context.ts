import type { ChatMessage, ContextBudgetInput, ContextDebug, ConversationMessage } from "@weft/types";
import { manifestToOpenAiTools, renderManifestPrompt, type Manifest } from "../action/index.ts";
import { safeJson } from "../action/json.ts";
import { buildContext } from "../conversation/index.ts";
import type { DeliberationInputs } from "./deliberation.ts";

export type AgentProtocol = "action-xml" | "openai-tools";

export interface AgentContextInput {
  protocol: AgentProtocol;
  manifest: Manifest;
  persona: string;
  /** Base rules; the conversation module's agent-mode rules when absent. */
  systemPrompt?: string;
  history: readonly ConversationMessage[];
  privateState: unknown;
  /** The scene's world state, when the agent is in one. */
  world?: unknown;
  budget?: ContextBudgetInput;
  /** Longest state section shown in full (default 4000 characters). */
  stateChars?: number;
}

const NATIVE_TOOL_POLICY = [
  "Act through the functions of this request: call a tool or skill with a function call, and read each result (a tool message) before your next step.",
  "Call `ask_user` only when you cannot go on without information that only the user has; the run then waits for the reply.",
  "When no tool is needed, answer in plain text without calling any function.",
].join("\n");

/**
 * The deliberation's inputs for one step (seed 004 §3.3 step 2): the system prompt (base rules,
 * the tool manifest for `<ACTION>` or the tool policy for native calls, persona, mode, then the
 * private state and world state), the conversation under the budget (observations included,
 * tool-call groups never split, reasoning kept for providers that need it back), and for the
 * native protocol the OpenAI tools.
 */
export function buildAgentContext(input: AgentContextInput): { inputs: DeliberationInputs; debug: ContextDebug } {
  const toolPolicy = input.protocol === "action-xml" ? renderManifestPrompt(input.manifest) : NATIVE_TOOL_POLICY;
  const built = buildContext({
    mode: "agent",
    history: input.history,
    persona: input.persona,
    ...(input.systemPrompt ? { systemPrompt: input.systemPrompt } : {}),
    toolPolicy,
    ...(input.budget ? { budget: input.budget } : {}),
    passBackReasoning: true,
  });
  let split = 0;
  while (split < built.messages.length && built.messages[split]!.role === "system") split++;
  const prefix = built.messages.slice(0, split).map((m) => m.content ?? "");
  prefix.push(...stateSections(input));
  const messages: ChatMessage[] = built.messages.slice(split);
  const inputs: DeliberationInputs = { system: prefix.join("\n\n"), messages };
  if (input.protocol === "openai-tools") inputs.tools = manifestToOpenAiTools(input.manifest);
  return { inputs, debug: built.debug };
}

function stateSections(input: AgentContextInput): string[] {
  const max = input.stateChars ?? 4000;
  const get = input.manifest.getById("scene:private-get", "tool")?.name;
  const set = input.manifest.getById("scene:private-set", "tool")?.name;
  const how = get || set ? `; ${[get && `read it with \`${get}\``, set && `change it with \`${set}\``].filter(Boolean).join(", ")}` : "";
  const sections = [`PRIVATE_STATE (only you can see it${how})\n${clipped(input.privateState ?? {}, max)}`];
  if (input.world !== undefined) sections.push(`WORLD_STATE (shared by every agent in the scene)\n${clipped(input.world, max)}`);
  return sections;
}

function clipped(value: unknown, max: number): string {
  const json = safeJson(value, 1);
  if (json.length <= max) return json;
  return `${json.slice(0, max)}\n… (cut: the first ${max} of ${json.length} characters; read the paths you need with your tools)`;
}
