import { SKILL_NODE_TYPE, WORKFLOW_INPUT_TYPE, WORKFLOW_OUTPUT_TYPE, workflowInterface, type PortType, type Workflow, type WorkflowEdge, type WorkflowNode } from "@weft/types";
import type { GraphCommand } from "../../../shared/graph/commands.ts";
import { IdAllocator, edgeId } from "../../../shared/graph/ids.ts";
import { findPort, nodePorts, type SpecLookup } from "../../../shared/graph/ports.ts";
import { interfacePorts } from "../../../shared/graph/skill-node.ts";

export interface SkillExtraction {
  /** The new workflow: the selected nodes with interface nodes for every edge the selection cut. */
  skill: Workflow;
  /** Replaces the selection in the source workflow by one `core:skill` node wired like the selection was. */
  command: GraphCommand;
  skillNodeId: string;
}

export type SkillExtractionResult = { ok: true; value: SkillExtraction } | { ok: false; reason: string };

interface CutGroup {
  name: string;
  type: PortType;
  /** The inner end (input: the source of the interface node's edges; output: the port feeding it). */
  node: string;
  handle: string;
  edges: WorkflowEdge[];
}

/** Port ids of the interface nodes as the catalogue declares them (their one output / one input). */
function interfacePortIds(specs: SpecLookup): { inputOut: string; outputIn: string } {
  return {
    inputOut: specs(WORKFLOW_INPUT_TYPE)?.outputs[0]?.id ?? "value",
    outputIn: specs(WORKFLOW_OUTPUT_TYPE)?.inputs[0]?.id ?? "value",
  };
}

/**
 * Cuts the selected nodes out of `doc` into a new skill workflow. Each distinct outside output that
 * feeds the selection becomes one interface input; each inside output read from outside becomes one
 * interface output. Edges inside the selection move with it.
 */
export function extractSkill(doc: Workflow, selected: string[], specs: SpecLookup, target: { id: string; name: string }): SkillExtractionResult {
  const inside = new Set(selected);
  const nodes = doc.nodes.filter((n) => inside.has(n.id));
  if (nodes.length === 0) return { ok: false, reason: "select the nodes that should become the skill first" };
  const iface = nodes.filter((n) => n.type === WORKFLOW_INPUT_TYPE || n.type === WORKFLOW_OUTPUT_TYPE);
  if (iface.length > 0) return { ok: false, reason: `the selection holds interface nodes (${iface.map((n) => n.id).join(", ")}); leave them out, the skill gets its own` };
  const byId = new Map(doc.nodes.map((n) => [n.id, n]));
  const portType = (nodeId: string, handle: string, side: "inputs" | "outputs"): PortType => {
    const node = byId.get(nodeId) as WorkflowNode;
    return findPort(nodePorts(node, specs(node.type))[side], handle)?.type ?? "any";
  };
  const groups = (edges: WorkflowEdge[], key: (e: WorkflowEdge) => string, make: (e: WorkflowEdge) => Omit<CutGroup, "edges" | "name"> & { name: string }): CutGroup[] => {
    const map = new Map<string, CutGroup>();
    const names = new IdAllocator([]);
    for (const e of edges) {
      const k = key(e);
      const group = map.get(k);
      if (group) group.edges.push(e);
      else {
        const made = make(e);
        map.set(k, { ...made, name: names.claim(made.name), edges: [e] });
      }
    }
    return [...map.values()];
  };
  const incoming = groups(
    doc.edges.filter((e) => !inside.has(e.source) && inside.has(e.target)),
    (e) => `${e.source}\0${e.sourceHandle}`,
    (e) => {
      const sourceType = portType(e.source, e.sourceHandle, "outputs");
      return { name: e.targetHandle, type: sourceType === "any" ? portType(e.target, e.targetHandle, "inputs") : sourceType, node: e.source, handle: e.sourceHandle };
    },
  );
  const outgoing = groups(
    doc.edges.filter((e) => inside.has(e.source) && !inside.has(e.target)),
    (e) => `${e.source}\0${e.sourceHandle}`,
    (e) => ({ name: e.sourceHandle === "$error" ? "error" : e.sourceHandle, type: portType(e.source, e.sourceHandle, "outputs"), node: e.source, handle: e.sourceHandle }),
  );

  const { inputOut, outputIn } = interfacePortIds(specs);
  const xs = nodes.map((n) => n.position.x);
  const ys = nodes.map((n) => n.position.y);
  const [minX, maxX, minY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys)];
  const skillIds = new IdAllocator(nodes.map((n) => n.id));
  const skillNodes: WorkflowNode[] = [...nodes];
  const skillEdges: WorkflowEdge[] = doc.edges.filter((e) => inside.has(e.source) && inside.has(e.target));
  incoming.forEach((g, i) => {
    const id = skillIds.claim(`in_${g.name}`);
    skillNodes.push({ id, type: WORKFLOW_INPUT_TYPE, position: { x: minX - 320, y: minY + i * 140 }, config: { name: g.name, portType: g.type, required: true, description: "" }, inputs: {} });
    for (const e of g.edges) skillEdges.push({ id: edgeId(id, inputOut, e.target, e.targetHandle), source: id, sourceHandle: inputOut, target: e.target, targetHandle: e.targetHandle });
  });
  outgoing.forEach((g, i) => {
    const id = skillIds.claim(`out_${g.name}`);
    skillNodes.push({ id, type: WORKFLOW_OUTPUT_TYPE, position: { x: maxX + 360, y: minY + i * 140 }, config: { name: g.name, portType: g.type, required: false, description: "" }, inputs: {} });
    skillEdges.push({ id: edgeId(g.node, g.handle, id, outputIn), source: g.node, sourceHandle: g.handle, target: id, targetHandle: outputIn });
  });
  const skill: Workflow = {
    id: target.id,
    name: target.name,
    description: `Made from ${nodes.length} node(s) of "${doc.name}".`,
    revision: 0,
    nodes: skillNodes,
    edges: skillEdges,
    annotations: [],
    tags: [],
  };

  const parentIds = IdAllocator.forWorkflow(doc);
  const skillNodeId = parentIds.next("skill");
  const center = { x: Math.round(xs.reduce((a, b) => a + b, 0) / xs.length), y: Math.round(ys.reduce((a, b) => a + b, 0) / ys.length) };
  const skillNode: WorkflowNode = {
    id: skillNodeId,
    type: SKILL_NODE_TYPE,
    position: center,
    config: { workflowId: target.id },
    inputs: {},
    ports: interfacePorts(workflowInterface(skill)),
    label: target.name,
  };
  const rewired: WorkflowEdge[] = [
    ...incoming.map((g) => ({ id: edgeId(g.node, g.handle, skillNodeId, g.name), source: g.node, sourceHandle: g.handle, target: skillNodeId, targetHandle: g.name })),
    ...outgoing.flatMap((g) =>
      g.edges.map((e) => ({ id: edgeId(skillNodeId, g.name, e.target, e.targetHandle), source: skillNodeId, sourceHandle: g.name, target: e.target, targetHandle: e.targetHandle })),
    ),
  ];
  const command: GraphCommand = {
    kind: "batch",
    commands: [
      { kind: "remove", ids: { nodes: [...inside].filter((id) => byId.has(id)), edges: [], annotations: [] } },
      { kind: "add", elements: { nodes: [skillNode], edges: rewired, annotations: [] } },
    ],
  };
  return { ok: true, value: { skill, command, skillNodeId } };
}
