import { splitToolParams, type NodeCatalog, type Workflow } from "@weft/types";

/**
 * A workflow of one node (seed 004 §7.3.2: an atomic tool call): the parameters become its literal
 * inputs, or its config where they name a setting (`nodeToolPorts`). A one-node workflow without
 * interface outputs returns all the node's outputs.
 */
export function singleNodeWorkflow(catalog: NodeCatalog, nodeType: string, params: Record<string, unknown>): Workflow {
  const name = nodeType.includes(":") ? nodeType.slice(nodeType.indexOf(":") + 1) : nodeType;
  const nodeId = name.replace(/[\s/]+/g, "-") || "node";
  const spec = catalog.get(nodeType)?.spec;
  const { inputs, config } = spec ? splitToolParams(spec, params) : { inputs: params, config: {} };
  return {
    id: `single:${nodeType}`,
    name: spec?.title ?? nodeType,
    description: `runs the node ${nodeType} on its own`,
    revision: 0,
    nodes: [{ id: nodeId, type: nodeType, position: { x: 0, y: 0 }, config, inputs }],
    edges: [],
    annotations: [],
    tags: [],
  };
}
