import { declaredPorts, ERROR_OUTPUT_ID, ERROR_PORT, WORKFLOW_INPUT_TYPE, WORKFLOW_OUTPUT_TYPE, type NodeSpec, type PortSpec, type WorkflowNode } from "@weft/types";

/** The ports one workflow node really has (`declaredPorts`), indexed for the graph compiler. */
export interface NodePorts {
  inputs: readonly PortSpec[];
  outputs: readonly PortSpec[];
  /** Inputs that have a default value. */
  withDefaults: readonly PortSpec[];
  /** Ids of required inputs. */
  requiredIds: readonly string[];
  /** Ids of required inputs without a default: each needs a literal value or an edge. */
  unfilledIds: readonly string[];
  input(id: string): PortSpec | undefined;
  output(id: string): PortSpec | undefined;
}

const EMPTY_PORTS: readonly PortSpec[] = [];
const NO_IDS: readonly string[] = [];

class PortIndex implements NodePorts {
  private readonly inputMap: Map<string, PortSpec>;
  private readonly outputMap: Map<string, PortSpec>;
  readonly withDefaults: readonly PortSpec[];
  readonly requiredIds: readonly string[];
  readonly unfilledIds: readonly string[];
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
    const unfilledIds = inputs.filter((p) => p.required && p.default === undefined).map((p) => p.id);
    this.unfilledIds = unfilledIds.length > 0 ? unfilledIds : NO_IDS;
  }
  input(id: string): PortSpec | undefined {
    return this.inputMap.get(id);
  }
  output(id: string): PortSpec | undefined {
    return this.outputMap.get(id);
  }
}

// Most nodes have exactly their spec's ports: one index per spec serves them all.
const specPorts = new WeakMap<NodeSpec, PortIndex>();
/** The spec asked for last: nodes of one type mostly come one after another, and a WeakMap lookup per node costs more than the rest. */
let lastSpec: NodeSpec | undefined;
let lastPorts: PortIndex | undefined;

/** Whether nodes of this spec have its ports whatever their config (see `declaredPorts`), for the spec asked for last. */
let lastFixed = false;

export function nodePorts(node: WorkflowNode, spec: NodeSpec): NodePorts {
  // A run of nodes of one plain type (a chain, a fan-out) needs neither `declaredPorts` nor its result object per node.
  if (spec === lastSpec && lastFixed && node.type !== WORKFLOW_INPUT_TYPE && node.type !== WORKFLOW_OUTPUT_TYPE) return lastPorts!;
  const { inputs, outputs } = declaredPorts(node, spec);
  if (inputs !== spec.inputs || outputs !== spec.outputs) return new PortIndex(inputs, outputs);
  if (spec === lastSpec) return lastPorts!;
  let ports = specPorts.get(spec);
  if (!ports) {
    ports = new PortIndex(inputs, outputs);
    specPorts.set(spec, ports);
  }
  lastSpec = spec;
  lastPorts = ports;
  lastFixed = !spec.flags?.dynamicPorts && !spec.flags?.outputsFromSchema;
  return ports;
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
