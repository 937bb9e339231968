import {
  ERROR_OUTPUT_ID,
  InterfaceNodeConfigSchema,
  WORKFLOW_INPUT_TYPE,
  WORKFLOW_OUTPUT_TYPE,
  type NodeSpec,
  type PortSpec,
  type PortType,
  type WorkflowNode,
} from "@weft/types";

/** The port a node's interface value flows through (`core:workflow-input` / `-output`). */
export const INTERFACE_VALUE_PORT = "value";

/** The ports one workflow node really has: from its spec, its own `ports` (dynamic), or its interface config. */
export interface NodePorts {
  inputs: readonly PortSpec[];
  outputs: readonly PortSpec[];
  /** Inputs that have a default value. */
  withDefaults: readonly PortSpec[];
  /** Ids of required inputs. */
  requiredIds: readonly string[];
  input(id: string): PortSpec | undefined;
  output(id: string): PortSpec | undefined;
}

/** The virtual output every node with `policy.onError = "route"` has. */
const ERROR_PORT: PortSpec = { id: ERROR_OUTPUT_ID, type: "json", required: false, multi: false, label: "error" };

const EMPTY_PORTS: readonly PortSpec[] = [];
const NO_IDS: readonly string[] = [];

class PortIndex implements NodePorts {
  private readonly inputMap: Map<string, PortSpec>;
  private readonly outputMap: Map<string, PortSpec>;
  readonly withDefaults: readonly PortSpec[];
  readonly requiredIds: readonly string[];
  constructor(
    readonly inputs: readonly PortSpec[],
    readonly outputs: readonly PortSpec[],
  ) {
    this.inputMap = new Map(inputs.map((p) => [p.id, p]));
    this.outputMap = new Map(outputs.map((p) => [p.id, p]));
    const withDefaults = inputs.filter((p) => p.default !== undefined);
    const requiredIds = inputs.filter((p) => p.required).map((p) => p.id);
    this.withDefaults = withDefaults.length > 0 ? withDefaults : EMPTY_PORTS;
    this.requiredIds = requiredIds.length > 0 ? requiredIds : NO_IDS;
  }
  input(id: string): PortSpec | undefined {
    return this.inputMap.get(id);
  }
  output(id: string): PortSpec | undefined {
    return this.outputMap.get(id);
  }
}

const specPorts = new WeakMap<NodeSpec, PortIndex>();

function portsOfSpec(spec: NodeSpec): PortIndex {
  let ports = specPorts.get(spec);
  if (!ports) {
    ports = new PortIndex(spec.inputs ?? EMPTY_PORTS, spec.outputs ?? EMPTY_PORTS);
    specPorts.set(spec, ports);
  }
  return ports;
}

function withType(ports: readonly PortSpec[], id: string, type: PortType, required?: boolean): PortSpec[] {
  return ports.map((p) => (p.id === id ? { ...p, type, required: required ?? p.required } : p));
}

/** A dynamic-ports node's declared ports, with schema defaults filled in (run() takes unparsed-by-zod workflows too). */
function normalise(ports: readonly PortSpec[] | undefined): PortSpec[] {
  return (ports ?? []).map((p) => ({ ...p, required: p.required ?? false, multi: p.multi ?? false }));
}

/**
 * The effective ports of `node`. Interface nodes take their value port's type from their config
 * (`portType`); a workflow-input's value is injected by the engine, so it is never a required edge.
 */
export function nodePorts(node: WorkflowNode, spec: NodeSpec): NodePorts {
  if (spec.flags?.dynamicPorts) return new PortIndex(normalise(node.ports?.inputs), normalise(node.ports?.outputs));
  const base = portsOfSpec(spec);
  if (node.type !== WORKFLOW_INPUT_TYPE && node.type !== WORKFLOW_OUTPUT_TYPE) return base;
  const parsed = InterfaceNodeConfigSchema.safeParse(node.config ?? {});
  const type: PortType = parsed.success ? parsed.data.portType : "any";
  if (node.type === WORKFLOW_INPUT_TYPE) {
    return new PortIndex(withType(base.inputs, INTERFACE_VALUE_PORT, type, false), withType(base.outputs, INTERFACE_VALUE_PORT, type));
  }
  return new PortIndex(withType(base.inputs, INTERFACE_VALUE_PORT, type), base.outputs);
}

/** Output lookup that knows the virtual `$error` port of route-policy nodes. */
export function outputPort(ports: NodePorts, id: string, routesErrors: boolean): PortSpec | undefined {
  if (id === ERROR_OUTPUT_ID) return routesErrors ? ERROR_PORT : undefined;
  return ports.output(id);
}

export function listPortIds(ports: readonly PortSpec[], extra?: string): string {
  const ids = ports.map((p) => `"${p.id}"`);
  if (extra) ids.push(`"${extra}"`);
  return ids.length > 0 ? ids.join(", ") : "none";
}
