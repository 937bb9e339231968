import { portTypeMismatch, WORKFLOW_INPUT_TYPE, WORKFLOW_OUTPUT_TYPE, type NodeSpec, type PortSpec, type PortType, type WorkflowNode } from "@weft/types";
import { nodePorts, type NodePorts } from "../../../shared/graph/ports.ts";

/**
 * Which port of a node added from a dragged wire (or from a selected node) the wire goes to.
 * `from` is the port on the existing node, `to` the port on the new one.
 */
export interface PortChoice {
  from: PortSpec;
  to: PortSpec;
  /** `fitScore` of the pair. */
  fit: number;
}

/**
 * How well a value of type `value` suits a port of type `port`: 3 the same type; 2 a port that takes
 * anything, a value of unknown type, or a widening (integer → number, messages → array); 1 a json
 * port, which takes it but only checks it at run time (text into "Variables" fails there); 0 no fit.
 */
export function fitScore(value: PortType, port: PortType): number {
  if (portTypeMismatch(value, port) !== null) return 0;
  if (value === port) return 3;
  if (port === "json" || value === "json") return 1;
  return 2;
}

/**
 * Every port pair the wire may take, best first: the closest type fit, then a required port before
 * an optional one, then the order the ports are declared in (the dragged port's order first).
 * `fromSide` is the side of the existing port: "source" when the wire leaves an output.
 */
export function portChoices(fromPorts: readonly PortSpec[], fromSide: "source" | "target", newPorts: (wire: PortType) => NodePorts): PortChoice[] {
  const scored: { choice: PortChoice; score: number; order: number }[] = [];
  fromPorts.forEach((from, f) => {
    const ports = newPorts(from.type);
    const candidates = fromSide === "source" ? ports.inputs : ports.outputs;
    candidates.forEach((to, t) => {
      const fit = fromSide === "source" ? fitScore(from.type, to.type) : fitScore(to.type, from.type);
      if (fit > 0) scored.push({ choice: { from, to, fit }, score: fit * 2 + (to.required ? 1 : 0), order: f * 1000 + t });
    });
  });
  return scored.sort((a, b) => b.score - a.score || a.order - b.order).map((s) => s.choice);
}

/**
 * The ports a node of `spec` has once added for a wire of type `wire`: an interface node
 * (workflow input / output) is created with the wire's type, so its value port fits it exactly;
 * a workflow input takes no wire (the run fills it).
 */
export function newNodePorts(spec: NodeSpec, wire: PortType): NodePorts {
  const prototype: WorkflowNode = {
    id: "new",
    type: spec.type,
    position: { x: 0, y: 0 },
    config: isInterfaceType(spec.type) ? { portType: wire } : {},
    inputs: {},
    // A skill's palette entry carries its interface as the node's own ports.
    ports: { inputs: [...spec.inputs], outputs: [...spec.outputs] },
  };
  return nodePorts(prototype, spec);
}

export const isInterfaceType = (type: string): boolean => type === WORKFLOW_INPUT_TYPE || type === WORKFLOW_OUTPUT_TYPE;

/** "Results → Workflow output.value": what a quick-add connected, for its status line. */
export function describeChoice(fromTitle: string, newTitle: string, choice: PortChoice, fromSide: "source" | "target"): string {
  const fromEnd = `${fromTitle}.${choice.from.label ?? choice.from.id}`;
  const newEnd = `${newTitle}.${choice.to.label ?? choice.to.id}`;
  return fromSide === "source" ? `${fromEnd} → ${newEnd}` : `${newEnd} → ${fromEnd}`;
}
