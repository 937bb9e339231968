/**
 * Fuzzy match of `query` against `text`: every query character must appear in order. Higher scores
 * for consecutive runs, matches at word starts and early matches; null when it does not match.
 */
export function fuzzyScore(query: string, text: string): number | null {
  const q = query.trim().toLowerCase();
  if (!q) return 0;
  const t = text.toLowerCase();
  const direct = t.indexOf(q);
  if (direct >= 0) return 1000 - direct + (direct === 0 || /[\s:_\-/.]/.test(t[direct - 1]) ? 200 : 0);
  let score = 0;
  let ti = 0;
  let run = 0;
  for (const ch of q) {
    if (ch === " ") continue;
    const found = t.indexOf(ch, ti);
    if (found < 0) return null;
    const wordStart = found === 0 || /[\s:_\-/.]/.test(t[found - 1]);
    run = found === ti ? run + 1 : 0;
    score += 10 + run * 5 + (wordStart ? 15 : 0) - Math.min(found - ti, 10);
    ti = found + 1;
  }
  return score;
}

/** The items matching `query`, best first (ties keep their order); each item is matched on its best field. */
export function fuzzyFilter<T>(items: readonly T[], query: string, fields: (item: T) => string[]): T[] {
  if (!query.trim()) return [...items];
  const scored: { item: T; score: number; index: number }[] = [];
  items.forEach((item, index) => {
    let best: number | null = null;
    fields(item).forEach((field, fieldIndex) => {
      const s = fuzzyScore(query, field);
      // Earlier fields (the title) weigh more than later ones (the description).
      if (s !== null) best = Math.max(best ?? -Infinity, s - fieldIndex * 50);
    });
    if (best !== null) scored.push({ item, score: best, index });
  });
  return scored.sort((a, b) => b.score - a.score || a.index - b.index).map((s) => s.item);
}
