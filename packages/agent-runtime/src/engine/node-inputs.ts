import { ERROR_OUTPUT_ID, type NodeValues } from "@weft/types";
import type { CompiledGraph } from "./compiled-graph.ts";
import { NodeState, STATE_WORDS } from "./node-state.ts";

type Outputs = readonly (NodeValues | null | undefined)[];

/**
 * The inputs node `i` runs with: its literal inputs, then the values of its edges (a multi input
 * gets a list in edge order; an edge whose source gave nothing counts as missing), then the port
 * defaults for whatever is still unset.
 */
export function resolveInputs(g: CompiledGraph, i: number, outputs: Outputs, literals: NodeValues): NodeValues {
  const inputs: NodeValues = {};
  for (const key in literals) {
    const value = literals[key];
    if (value !== undefined) inputs[key] = value;
  }
  const to = g.inStart[i + 1];
  for (let e = g.inStart[i]; e < to; e++) {
    const out = outputs[g.inSrc[e]];
    const value = out ? out[g.inHandle[e]] : undefined;
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
