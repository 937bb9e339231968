import { expect } from "vitest";
import type { WorkflowInput } from "../../../packages/types/src/index.ts";
import { RunStatusSchema, StartedRunSchema } from "../../../apps/backend/src/testing/answers.ts";
import { poll } from "./poll.ts";
import type { Weft } from "./weft.ts";

/** topic → `template` → text, laid out in a row: a workflow with an input, one node and an output. */
export function notesWorkflow(template: string, id = "notes", name = "Notes"): WorkflowInput {
  return {
    id,
    name,
    nodes: [
      { id: "topic", type: "core:workflow-input", position: { x: 0, y: 0 }, config: { name: "topic", portType: "string", required: true } },
      { id: "fill", type: "core:text-template", position: { x: 320, y: 0 }, config: { template } },
      { id: "out", type: "core:workflow-output", position: { x: 640, y: 0 }, config: { name: "text", portType: "string" } },
    ],
    edges: [
      { id: "e1", source: "topic", sourceHandle: "value", target: "fill", targetHandle: "values" },
      { id: "e2", source: "fill", sourceHandle: "text", target: "out", targetHandle: "value" },
    ],
  };
}

/** A chain of text nodes: `count` nodes, each fed by the one before. */
export function chainWorkflow(id: string, name: string, count: number): WorkflowInput {
  const nodes: WorkflowInput["nodes"] = [];
  const edges: NonNullable<WorkflowInput["edges"]> = [];
  for (let i = 0; i < count; i++) {
    nodes.push({ id: `${id}_${i}`, type: "core:text-transform", position: { x: i * 320, y: 0 }, config: { case: "upper" } });
    if (i > 0) edges.push({ id: `${id}_e${i}`, source: `${id}_${i - 1}`, sourceHandle: "text", target: `${id}_${i}`, targetHandle: "text" });
  }
  return { id, name, nodes, edges };
}

/** Runs the stored workflow through the API and waits until the run has completed: its id. */
export async function runToEnd(weft: Weft, workflowId: string, inputs: Record<string, unknown>): Promise<string> {
  const started = await weft.api("POST", `/api/workflows/${workflowId}/runs`, { inputs });
  expect(started.status).toBe(202);
  const { runId } = StartedRunSchema.parse(started.body);
  await poll(async () => (await weft.read(`/api/runs/${runId}`, RunStatusSchema)).run.status, { timeout: 15_000 }).toBe("completed");
  return runId;
}
