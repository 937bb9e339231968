import type { Observation } from "@weft/types";

/** A node's last completed outputs in a run, by node id. */
function lastOutputs(observations: readonly Observation[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const o of observations) if (o.status === "completed" && !o.nodeId.includes("/")) out.set(o.nodeId, JSON.stringify(o.outputs));
  return out;
}

/** The nodes whose outputs differ between a parent run and its fork (or that completed in only one of them), in the fork's order. */
export function changedNodes(parent: readonly Observation[], fork: readonly Observation[]): string[] {
  const before = lastOutputs(parent);
  const after = lastOutputs(fork);
  const ids = [...new Set([...after.keys(), ...before.keys()])];
  return ids.filter((id) => before.get(id) !== after.get(id));
}
