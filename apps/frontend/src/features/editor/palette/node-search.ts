import { PORT_TYPES, type NodeSpec, type PortType } from "@weft/types";
import { fuzzyScore } from "../../../shared/lib/fuzzy.ts";
import { NODE_KEYWORDS } from "./node-keywords.ts";

const isPortType = (word: string): word is PortType => (PORT_TYPES as readonly string[]).includes(word);

/**
 * Node types matching a search, best first: fuzzy on the title, type, category and search
 * keywords (synonyms); a port type ("array") finds the nodes with such a port; a description
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
    // Keywords only as whole words typed from their start: fuzzy over a word list matches too much.
    const keywords = NODE_KEYWORDS[spec.type];
    if (keywords && keywords.split(" ").some((word) => word.startsWith(q))) best = Math.max(best ?? -Infinity, 900);
    if (best === null && isPortType(q) && [...spec.inputs, ...spec.outputs].some((p) => p.type === q)) best = -400;
    if (best === null && spec.description.toLowerCase().includes(q)) best = -500;
    if (best !== null) scored.push({ spec, score: best, index });
  });
  return scored.sort((a, b) => b.score - a.score || a.index - b.index).map((s) => s.spec);
}
