import type { NodeSpec } from "@weft/types";
import { fuzzyScore } from "./fuzzy.ts";

/**
 * Node types matching a search, best first: fuzzy on the title, type and category; a description
 * counts only when it contains the words as typed (a fuzzy match in a long text matches anything).
 */
export function searchSpecs(specs: readonly NodeSpec[], query: string): NodeSpec[] {
  const q = query.trim().toLowerCase();
  if (!q) return [...specs];
  const scored: { spec: NodeSpec; score: number; index: number }[] = [];
  specs.forEach((spec, index) => {
    let best: number | null = null;
    [spec.title, spec.type, spec.category].forEach((field, i) => {
      const s = fuzzyScore(q, field);
      if (s !== null) best = Math.max(best ?? -Infinity, s - i * 50);
    });
    if (best === null && spec.description.toLowerCase().includes(q)) best = -500;
    if (best !== null) scored.push({ spec, score: best, index });
  });
  return scored.sort((a, b) => b.score - a.score || a.index - b.index).map((s) => s.spec);
}
