import { ERROR_OUTPUT_ID, type NodeValues } from "@weft/types";
import { NO_LITERALS, type CompiledGraph } from "./compiled-graph.ts";
import { NodeState, STATE_WORDS } from "./node-state.ts";

type Outputs = readonly (NodeValues | null | undefined)[];

/** Where `resolveInputs` tells the first input edge that carries nothing (-1: none): one object per graph run, not one per node. */
export interface DeadEdge {
  edge: number;
}

/**
 * The inputs node `i` runs with: its literal inputs, then the values of its edges (a multi input
 * gets a list in edge order; an edge whose source gave nothing counts as missing), then the port
 * defaults for whatever is still unset. The first edge that carries nothing goes to `dead` (each edge's
 * value is read once: the scheduler skips the node or drops the edge by it).
 */
export function resolveInputs(g: CompiledGraph, i: number, outputs: Outputs, literals: NodeValues, dead: DeadEdge): NodeValues {
  const inputs: NodeValues = {};
  // for-in costs even over an empty object, and most nodes have no literal inputs.
  if (literals !== NO_LITERALS) {
    for (const key in literals) {
      const value = literals[key];
      if (value !== undefined) inputs[key] = value;
    }
  }
  dead.edge = -1;
  const to = g.inStart[i + 1];
  for (let e = g.inStart[i]; e < to; e++) {
    const out = outputs[g.inSrc[e]];
    const value = out ? out[g.inHandle[e]] : undefined;
    if (value === undefined && dead.edge < 0) dead.edge = e;
    const port = g.inPort[e];
    if (g.inMulti[e]) {
      if (g.inFirst[e]) inputs[port] = value === undefined ? [] : [value];
      else if (value !== undefined) (inputs[port] as unknown[]).push(value);
    } else if (value !== undefined) inputs[port] = value;
  }
  const withDefaults = g.withDefaults[i];
  for (let k = 0; k < withDefaults.length; k++) {
    const port = withDefaults[k];
    if (inputs[port.id] === undefined) inputs[port.id] = port.default;
  }
  return inputs;
}

/** Why input edge `e` carries nothing: its source failed, was skipped or cancelled, or did not take that branch. */
export function deadEdgeReason(g: CompiledGraph, e: number, state: Uint8Array, outputs: Outputs, prefix: string): string {
  const src = g.inSrc[e];
  const from = `"${prefix}${g.ids[src]}"`;
  const port = g.inPort[e];
  if (state[src] === NodeState.Completed) return `input "${port}" is on a branch not taken: ${from} gave no "${g.inHandle[e]}" output`;
  if (state[src] === NodeState.Failed && outputs[src]) return `input "${port}" comes from ${from}, which failed (its error went to ${ERROR_OUTPUT_ID})`;
  return `input "${port}" comes from ${from}, which ${STATE_WORDS[state[src]]}`;
}
