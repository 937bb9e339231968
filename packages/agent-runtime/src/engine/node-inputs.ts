import { ERROR_OUTPUT_ID, type NodeValues } from "@weft/types";
import { CacheKey, keyHead } from "./cache-key.ts";
import { finishHash, hashInteger, hashText, LANE_A, LANE_B, SEED_A, SEED_B } from "./key-hash.ts";
import { EMPTY_PART, hashObjectPart, objectPart } from "./object-part.ts";
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

/**
 * Node `i`'s cache key: its static part (type, version, config, literal inputs; recomputed when the
 * run overrides the literals) and, per input edge, the port, the handle and the upstream node's ref.
 */
export function cacheKey(g: CompiledGraph, i: number, refs: Float64Array, override: NodeValues | undefined): CacheKey {
  const head = keyHead(g.defs[i]);
  const config = objectPart(g.configs[i]);
  const literals = objectPart(override ?? g.literals[i]);
  let a: number;
  let b: number;
  if (config === EMPTY_PART && literals === EMPTY_PART) {
    a = head.plainA;
    b = head.plainB;
  } else {
    a = hashObjectPart(hashObjectPart(head.a, config, LANE_A), literals, LANE_A);
    b = hashObjectPart(hashObjectPart(head.b, config, LANE_B), literals, LANE_B);
  }
  const from = g.inStart[i];
  const to = g.inStart[i + 1];
  const edges = new Array<string | number>(3 * (to - from));
  // An edge's label (port and handle) goes into the hash as the label's own hash: a fan-in's edges
  // mostly share one label, which is then hashed once.
  let port = "";
  let handle = "";
  let labelA = 0;
  let labelB = 0;
  for (let e = from, k = 0; e < to; e++, k += 3) {
    if (g.inPort[e] !== port || g.inHandle[e] !== handle) {
      port = g.inPort[e];
      handle = g.inHandle[e];
      labelA = hashText(hashText(SEED_A, port, LANE_A), handle, LANE_A);
      labelB = hashText(hashText(SEED_B, port, LANE_B), handle, LANE_B);
    }
    const ref = refs[g.inSrc[e]];
    edges[k] = port;
    edges[k + 1] = handle;
    edges[k + 2] = ref;
    a = hashInteger(Math.imul(a ^ labelA, LANE_A), ref, LANE_A);
    b = hashInteger(Math.imul(b ^ labelB, LANE_B), ref, LANE_B);
  }
  return new CacheKey(finishHash(a, b), head.node, config, literals, edges);
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
