/** A one-node workflow calling `type` with literal `inputs`, the node's `result` output as the workflow's `result`. */
export function oneNodeWorkflow(id: string, type: string, inputs: Record<string, unknown>) {
  return {
    id,
    name: id,
    nodes: [
      { id: "call", type, inputs },
      { id: "result", type: "core:workflow-output", config: { name: "result", portType: "json" } },
    ],
    edges: [{ id: "e1", source: "call", sourceHandle: "result", target: "result", targetHandle: "value" }],
  };
}
