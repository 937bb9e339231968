import { declaredPorts, ERROR_PORT, routesErrors, WORKFLOW_INPUT_TYPE, type NodeSpec, type PortSpec, type PortType, type WorkflowNode } from "@weft/types";

export interface NodePorts {
  inputs: readonly PortSpec[];
  outputs: readonly PortSpec[];
}

/** Looks a node type's spec up; undefined for a type the server does not know. */
export type SpecLookup = (type: string) => NodeSpec | undefined;

// Workflow nodes are immutable values, so the ports of one node object never change.
const memo = new WeakMap<WorkflowNode, { spec: NodeSpec | undefined; ports: NodePorts }>();

/** The handles a workflow node shows: the ports the engine gives it (`declaredPorts`), with the `$error` output when it routes its errors. */
export function nodePorts(node: WorkflowNode, spec: NodeSpec | undefined): NodePorts {
  const hit = memo.get(node);
  if (hit && hit.spec === spec) return hit.ports;
  const declared = declaredPorts(node, spec);
  const ports: NodePorts = {
    // The engine fills an input node's `value` from the run's inputs; it is not for wiring.
    inputs: node.type === WORKFLOW_INPUT_TYPE ? [] : declared.inputs,
    outputs: routesErrors(node) ? [...declared.outputs, ERROR_PORT] : declared.outputs,
  };
  memo.set(node, { spec, ports });
  return ports;
}

export function findPort(ports: readonly PortSpec[], id: string | null | undefined): PortSpec | undefined {
  return id ? ports.find((p) => p.id === id) : undefined;
}

/** A colour per port type, the same in the palette, on handles and on edges (CSS variables of the theme). */
export function portColorVar(type: PortType): string {
  return `var(--port-${type})`;
}

export function portLabel(port: PortSpec): string {
  return port.label ?? port.id;
}
