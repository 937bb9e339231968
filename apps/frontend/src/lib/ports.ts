import {
  ERROR_OUTPUT_ID,
  PortTypeSchema,
  WORKFLOW_INPUT_TYPE,
  WORKFLOW_OUTPUT_TYPE,
  type NodeSpec,
  type PortSpec,
  type PortType,
  type WorkflowNode,
} from "@weft/types";

export interface NodePorts {
  inputs: PortSpec[];
  outputs: PortSpec[];
}

/** Looks a node type's spec up; undefined for a type the server does not know. */
export type SpecLookup = (type: string) => NodeSpec | undefined;

const ERROR_PORT: PortSpec = { id: ERROR_OUTPUT_ID, type: "json", label: "error", required: false, multi: false };

// Workflow nodes are immutable values, so the ports of one node object never change.
const memo = new WeakMap<WorkflowNode, { spec: NodeSpec | undefined; ports: NodePorts }>();

/**
 * The ports a workflow node shows: its spec's ports, or the node's own `ports` for a spec with
 * `dynamicPorts` (e.g. `core:skill`), with interface nodes typed by their `portType` config and the
 * `$error` output added when the node routes its errors.
 */
export function nodePorts(node: WorkflowNode, spec: NodeSpec | undefined): NodePorts {
  const hit = memo.get(node);
  if (hit && hit.spec === spec) return hit.ports;
  const ports = computePorts(node, spec);
  memo.set(node, { spec, ports });
  return ports;
}

function computePorts(node: WorkflowNode, spec: NodeSpec | undefined): NodePorts {
  const dynamic = !spec || spec.flags.dynamicPorts;
  let inputs = dynamic && node.ports ? node.ports.inputs : (spec?.inputs ?? []);
  let outputs = dynamic && node.ports ? node.ports.outputs : (spec?.outputs ?? []);
  const declared = PortTypeSchema.safeParse(node.config.portType);
  if (declared.success) {
    if (node.type === WORKFLOW_INPUT_TYPE || node.type === WORKFLOW_OUTPUT_TYPE) {
      inputs = inputs.map((p) => retype(p, declared.data));
      outputs = outputs.map((p) => retype(p, declared.data));
    }
  }
  // The engine fills an input node's `value` from the run's inputs; it is not for wiring.
  if (node.type === WORKFLOW_INPUT_TYPE) inputs = [];
  if (node.policy?.onError === "route") outputs = [...outputs, ERROR_PORT];
  return { inputs, outputs };
}

function retype(port: PortSpec, type: PortType): PortSpec {
  return port.type === "any" ? { ...port, type } : port;
}

export function findPort(ports: PortSpec[], id: string | null | undefined): PortSpec | undefined {
  return id ? ports.find((p) => p.id === id) : undefined;
}

/** A colour per port type, the same in the palette, on handles and on edges (CSS variables of the theme). */
export function portColorVar(type: PortType): string {
  return `var(--port-${type})`;
}

export function portLabel(port: PortSpec): string {
  return port.label ?? port.id;
}
