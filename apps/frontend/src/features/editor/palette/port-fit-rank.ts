import type { NodeSpec } from "@weft/types";

/** Categories whose nodes reach outside the workflow (files, network, shell, world state): offered after the ones that just work on a value. */
const OUTSIDE = new Set(["files", "http", "shell", "scene", "llm", "code", "a2a"]);

/**
 * Orders the nodes offered for a wire: by how well they fit it (`fit`, higher first); nodes that
 * reach outside after the rest; then the ones used most; ties keep their order.
 */
export function rankByPortFit(specs: readonly NodeSpec[], fit: (spec: NodeSpec) => number, uses: (type: string) => number): NodeSpec[] {
  const score = (spec: NodeSpec): number => fit(spec) * 2 - (OUTSIDE.has(spec.category) ? 1 : 0);
  return specs
    .map((spec, index) => ({ spec, index, score: score(spec), uses: uses(spec.type) }))
    .sort((a, b) => b.score - a.score || b.uses - a.uses || a.index - b.index)
    .map((r) => r.spec);
}
