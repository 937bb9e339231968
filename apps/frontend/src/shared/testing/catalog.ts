import { NodeSpecSchema, WorkflowSchema, type NodeSpec, type NodeSpecInput, type Workflow, type WorkflowInput } from "@weft/types";
import type { SpecLookup } from "../graph/ports.ts";

/** A small catalogue shaped like the built-in one, for the pure-logic tests. */
const inputs: NodeSpecInput[] = [
  {
    type: "core:text-template",
    title: "Text template",
    category: "text",
    inputs: [
      { id: "template", type: "string", multiline: true },
      { id: "vars", type: "json" },
    ],
    outputs: [{ id: "text", type: "string" }],
    config: [],
  },
  { type: "core:number", title: "Number", category: "math", inputs: [{ id: "value", type: "number", min: 0, max: 10 }], outputs: [{ id: "value", type: "number" }] },
  {
    type: "core:add",
    title: "Add",
    category: "math",
    inputs: [
      { id: "a", type: "number" },
      { id: "b", type: "number" },
    ],
    outputs: [{ id: "sum", type: "number" }],
  },
  { type: "core:join", title: "Join texts", category: "text", inputs: [{ id: "parts", type: "string", multi: true }], outputs: [{ id: "text", type: "string" }] },
  {
    type: "core:llm",
    title: "LLM chat",
    category: "llm",
    description: "Calls a chat model",
    inputs: [{ id: "prompt", type: "string", required: true }],
    outputs: [
      { id: "text", type: "string" },
      { id: "messages", type: "messages" },
    ],
    flags: { streaming: true },
  },
  { type: "core:workflow-input", title: "Workflow input", category: "interface", outputs: [{ id: "value", type: "any" }], config: [{ id: "name", kind: "text", required: true }] },
  { type: "core:workflow-output", title: "Workflow output", category: "interface", inputs: [{ id: "value", type: "any" }], config: [{ id: "name", kind: "text", required: true }] },
  { type: "core:skill", title: "Skill", category: "workflow", config: [{ id: "workflowId", kind: "text", required: true }], flags: { dynamicPorts: true } },
];

export const testSpecs: NodeSpec[] = inputs.map((s) => NodeSpecSchema.parse(s));
const byType = new Map(testSpecs.map((s) => [s.type, s]));
export const testLookup: SpecLookup = (type) => byType.get(type);

export function testWorkflow(partial: Partial<WorkflowInput> & Pick<WorkflowInput, "nodes">): Workflow {
  return WorkflowSchema.parse({ id: "wf", name: "Test", ...partial });
}

/** text_1 (template) → llm_1.prompt; number_1 → add_1.a; number_2 → add_1.b */
export function sampleWorkflow(): Workflow {
  return testWorkflow({
    nodes: [
      { id: "text_1", type: "core:text-template", position: { x: 0, y: 0 }, inputs: { template: "Hello {{name}}" } },
      { id: "llm_1", type: "core:llm", position: { x: 300, y: 0 } },
      { id: "number_1", type: "core:number", position: { x: 0, y: 200 }, inputs: { value: 2 } },
      { id: "number_2", type: "core:number", position: { x: 0, y: 300 }, inputs: { value: 3 } },
      { id: "add_1", type: "core:add", position: { x: 300, y: 250 } },
    ],
    edges: [
      { id: "text_1.text->llm_1.prompt", source: "text_1", sourceHandle: "text", target: "llm_1", targetHandle: "prompt" },
      { id: "number_1.value->add_1.a", source: "number_1", sourceHandle: "value", target: "add_1", targetHandle: "a" },
      { id: "number_2.value->add_1.b", source: "number_2", sourceHandle: "value", target: "add_1", targetHandle: "b" },
    ],
    annotations: [{ id: "frame_1", kind: "frame", position: { x: -20, y: -20 }, size: { width: 600, height: 150 }, text: "Prompt" }],
  });
}
