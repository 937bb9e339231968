import { ErrorCode, McpError, type GetPromptResult, type Prompt } from "@modelcontextprotocol/sdk/types.js";
import type { AgentProfile } from "@weft/types";
import type { DocumentRepository } from "../storage/document-table.ts";
import { mayCall, type McpCaller } from "./mcp-caller.ts";

/** The agent profiles prompts are read from (the agents' repository). */
export type AgentProfiles = Pick<DocumentRepository<AgentProfile>, "list" | "get">;

/** A `{{name}}` placeholder of a persona, written as the text-template node writes them. */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.]*)\s*\}\}/g;

/** The persona's placeholders, each once, in order of first use: the prompt's arguments. */
export function promptVariables(persona: string): string[] {
  return [...new Set([...persona.matchAll(PLACEHOLDER)].map((m) => m[1] ?? ""))];
}

function agentPath(id: string): string {
  return `/api/agents/${encodeURIComponent(id)}`;
}

/** An agent's system prompt (its persona) as an MCP prompt named by the agent's id. */
export function agentPrompt(agent: AgentProfile): Prompt {
  return {
    name: agent.id,
    title: agent.name,
    description: `The system prompt (persona) of the Weft agent "${agent.name}".`,
    arguments: promptVariables(agent.persona).map((name) => ({ name, description: `Fills {{${name}}} in the persona.`, required: true })),
  };
}

export async function listPrompts(agents: AgentProfiles, caller: McpCaller): Promise<Prompt[]> {
  const { items } = await agents.list();
  return items
    .map((s) => s.document)
    .filter((a) => mayCall(caller, "GET", agentPath(a.id)))
    .map(agentPrompt);
}

/** The persona with each argument filled in; a missing argument is refused by name (the client can ask the user for it). */
export async function getPrompt(agents: AgentProfiles, name: string, args: Record<string, string>, caller: McpCaller): Promise<GetPromptResult> {
  const stored = mayCall(caller, "GET", agentPath(name)) ? await agents.get(name) : undefined;
  if (!stored) throw new McpError(ErrorCode.InvalidParams, `There is no prompt "${name}"; prompts/list names each agent's system prompt.`);
  const persona = stored.document.persona;
  const missing = promptVariables(persona).filter((v) => args[v] === undefined);
  if (missing.length > 0) throw new McpError(ErrorCode.InvalidParams, `Prompt "${name}" needs the argument${missing.length > 1 ? "s" : ""} ${missing.join(", ")}.`);
  // One pass over the persona: a value that itself reads "{{x}}" stays as written.
  const text = persona.replace(PLACEHOLDER, (whole, variable: string) => args[variable] ?? whole);
  return {
    description: `The system prompt of the Weft agent "${stored.document.name}".`,
    messages: [{ role: "user", content: { type: "text", text } }],
  };
}
