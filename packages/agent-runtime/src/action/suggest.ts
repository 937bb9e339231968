import { distance } from "fastest-levenshtein";

/** Edit distance is quadratic: hostile names are cut before comparing. */
const MAX_COMPARED_LENGTH = 96;

/** `playerId`, `player_id`, `Player-ID` all normalise to `playerid`. */
export function normalizeName(name: string): string {
  return name
    .slice(0, MAX_COMPARED_LENGTH)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "");
}

/**
 * How far `query` is from `candidate` (lower is nearer), or undefined when too far to suggest.
 * Spelling variants (case, `_`, `-`) count as 0; a containment (`read_file` in `core_read_file`) as 1.
 */
export function nameDistance(query: string, candidate: string): number | undefined {
  const q = normalizeName(query);
  const c = normalizeName(candidate);
  if (!q || !c) return undefined;
  if (q === c) return 0;
  if (q.length >= 3 && c.length >= 3 && (c.includes(q) || q.includes(c))) return 1;
  const d = distance(q, c);
  return d <= Math.max(2, Math.floor(Math.min(q.length, c.length) / 3)) ? d + 1 : undefined;
}

/** Up to `max` candidates nearest to `query`, nearest first (ties by name). */
export function nearestNames(query: string, candidates: Iterable<string>, max = 3): string[] {
  const scored: Array<{ name: string; d: number }> = [];
  for (const name of candidates) {
    const d = nameDistance(query, name);
    if (d !== undefined) scored.push({ name, d });
  }
  scored.sort((a, b) => a.d - b.d || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return scored.slice(0, max).map((s) => s.name);
}
