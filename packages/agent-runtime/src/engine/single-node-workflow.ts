import type { NodeCatalog, Workflow } from "@weft/types";

/**
 * A workflow of one node, its parameters as literal inputs (seed 004 §7.3.2: an atomic tool call).
 * A one-node workflow without interface outputs returns all the node's outputs.
 */
export function singleNodeWorkflow(catalog: NodeCatalog, nodeType: string, params: Record<string, unknown>, config: Record<string, unknown> = {}): Workflow {
  const name = nodeType.includes(":") ? nodeType.slice(nodeType.indexOf(":") + 1) : nodeType;
  const nodeId = name.replace(/[\s/]+/g, "-") || "node";
  return {
    id: `single:${nodeType}`,
    name: catalog.get(nodeType)?.spec.title ?? nodeType,
    description: `runs the node ${nodeType} on its own`,
    revision: 0,
    nodes: [{ id: nodeId, type: nodeType, position: { x: 0, y: 0 }, config: { ...config }, inputs: { ...params } }],
    edges: [],
    annotations: [],
    tags: [],
  };
}
