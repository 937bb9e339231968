import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { interfaceInputsJsonSchema, interfaceOutputsJsonSchema, type WorkflowSummary } from "@weft/types";
import type { RunsStorage } from "../runs/runs-storage.ts";
import type { RunEnding } from "../runs/run-ending.ts";

/** One skill as an MCP tool: named by its workflow id (what a run names), its interface as the schemas. */
export function skillTool(skill: WorkflowSummary): Tool {
  return {
    name: skill.id,
    title: skill.name,
    description: skill.description || `Runs the Weft skill "${skill.name}".`,
    inputSchema: { ...interfaceInputsJsonSchema(skill.interface), type: "object" },
    outputSchema: { ...interfaceOutputsJsonSchema(skill.interface), type: "object" },
  };
}

/** The stored skills (workflows with an interface), each a tool. */
export async function skillTools(storage: RunsStorage): Promise<Tool[]> {
  const { items } = await storage.workflows.summaries();
  return items.filter((w) => w.isSkill).map(skillTool);
}

/** The skill a tool name stands for, if it is one. */
export async function findSkill(storage: RunsStorage, name: string): Promise<WorkflowSummary | undefined> {
  const { items } = await storage.workflows.summaries();
  return items.find((w) => w.isSkill && w.id === name);
}

/**
 * A run's ending as the tool's result. Failures are results with `isError` (not protocol errors), so
 * the calling model reads what went wrong; the run id lets a person find the run in Weft.
 */
export function toolResult(runId: string, ending: RunEnding): CallToolResult {
  if (ending.status === "completed") {
    return { content: [{ type: "text", text: JSON.stringify(ending.outputs) }], structuredContent: ending.outputs, _meta: { "weft/runId": runId } };
  }
  const text =
    ending.status === "failed" ? `The skill failed (${ending.error.code}): ${ending.error.message} (Weft run ${runId})` : `The run was ${ending.status}: ${ending.reason} (Weft run ${runId})`;
  return { content: [{ type: "text", text }], isError: true, _meta: { "weft/runId": runId } };
}

/** A refusal before any run started (bad inputs, a full queue), as a result the model can act on. */
export function refusedResult(code: string, message: string): CallToolResult {
  return { content: [{ type: "text", text: `${code}: ${message}` }], isError: true };
}
