/** A value on one line, shortened. */
export function brief(value: unknown, max = 120): string {
  if (value === undefined) return "—";
  return clip(JSON.stringify(value) ?? String(value), max);
}

/** Text cut to at most `max` characters, an ellipsis marking the cut. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
