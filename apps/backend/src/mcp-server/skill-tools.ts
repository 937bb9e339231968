import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { interfaceInputsJsonSchema, interfaceOutputsJsonSchema, type WorkflowSummary } from "@weft/types";
import type { RunsStorage } from "../runs/runs-storage.ts";
import type { RunEnding } from "../runs/run-ending.ts";
import { MEDIA_REFERENCE_SCHEMA, mediaPorts, outputContent } from "./skill-media.ts";

/** One skill as an MCP tool: named by its workflow id (what a run names), its interface as the schemas (an image or file output described, its bytes being content). */
export function skillTool(skill: WorkflowSummary): Tool {
  const outputSchema = interfaceOutputsJsonSchema(skill.interface);
  const media = mediaPorts(skill.interface);
  if (media.length > 0) {
    const properties = { ...(outputSchema.properties as Record<string, unknown>) };
    for (const port of media) properties[port.name] = { ...MEDIA_REFERENCE_SCHEMA, ...(port.description ? { description: port.description } : {}) };
    outputSchema.properties = properties;
  }
  return {
    name: skill.id,
    title: skill.name,
    description: skill.description || `Runs the Weft skill "${skill.name}".`,
    inputSchema: { ...interfaceInputsJsonSchema(skill.interface), type: "object" },
    outputSchema: { ...outputSchema, type: "object" },
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
 * A run's ending as the tool's result (image and file outputs as image and resource content). Failures are results with `isError` (not protocol errors), so
 * the calling model reads what went wrong; the run id lets a person find the run in Weft.
 */
export function toolResult(runId: string, ending: RunEnding, skill: Pick<WorkflowSummary, "interface">): CallToolResult {
  if (ending.status === "completed") {
    const { content, structured } = outputContent(runId, ending.outputs, mediaPorts(skill.interface));
    return { content, structuredContent: structured, _meta: { "weft/runId": runId } };
  }
  const text =
    ending.status === "failed" ? `The skill failed (${ending.error.code}): ${ending.error.message} (Weft run ${runId})` : `The run was ${ending.status}: ${ending.reason} (Weft run ${runId})`;
  return { content: [{ type: "text", text }], isError: true, _meta: { "weft/runId": runId } };
}

/** A refusal before any run started (bad inputs, a full queue), as a result the model can act on. */
export function refusedResult(code: string, message: string): CallToolResult {
  return { content: [{ type: "text", text: `${code}: ${message}` }], isError: true };
}
