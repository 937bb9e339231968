import { portTypeMismatch, type NodeSpec, type PortType } from "@weft/types";

/** Categories whose nodes reach outside the workflow (files, network, shell, world state): offered after the ones that just work on a value. */
const OUTSIDE = new Set(["files", "http", "shell", "scene", "llm", "code"]);

/**
 * Orders the nodes offered for a dropped wire: the node's main port (its first input, or first
 * output when the wire came from an input) fitting the wire's type exactly first, then loosely;
 * nodes that reach outside after the rest; then the ones used most; ties keep their order.
 */
export function rankByPortFit(specs: readonly NodeSpec[], type: PortType, fromSide: "source" | "target", uses: (type: string) => number): NodeSpec[] {
  const score = (spec: NodeSpec): number => {
    const main = fromSide === "source" ? spec.inputs[0] : spec.outputs[0];
    const fit = !main ? 0 : main.type === type ? 2 : (fromSide === "source" ? portTypeMismatch(type, main.type) : portTypeMismatch(main.type, type)) === null ? 1 : 0;
    return fit * 2 - (OUTSIDE.has(spec.category) ? 1 : 0);
  };
  return specs
    .map((spec, index) => ({ spec, index, score: score(spec), uses: uses(spec.type) }))
    .sort((a, b) => b.score - a.score || b.uses - a.uses || a.index - b.index)
    .map((r) => r.spec);
}
