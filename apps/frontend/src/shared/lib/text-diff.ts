import { structuredPatch } from "diff";

export type DiffLineKind = "add" | "remove" | "context";

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
  /** Line numbers on each side (absent on the side the line is not on). */
  oldNo?: number;
  newNo?: number;
}

export interface DiffHunk {
  header: string;
  lines: DiffLine[];
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/**
 * The text a side of a document diff is made of: pretty JSON with sorted keys, so two versions
 * written in another key order do not differ. Absent (null) is the empty text.
 */
export function diffableJson(value: unknown): string {
  return value === null || value === undefined ? "" : `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}

/** The hunks (with `context` unchanged lines around each change) that turn `before` into `after`. */
export function diffHunks(before: string, after: string, context = 3): DiffHunk[] {
  const patch = structuredPatch("stored", "staged", before, after, undefined, undefined, { context });
  return patch.hunks.map((h) => {
    let oldNo = h.oldStart;
    let newNo = h.newStart;
    const lines: DiffLine[] = [];
    for (const raw of h.lines) {
      const mark = raw[0];
      const text = raw.slice(1);
      if (mark === "+") lines.push({ kind: "add", text, newNo: newNo++ });
      else if (mark === "-") lines.push({ kind: "remove", text, oldNo: oldNo++ });
      else if (mark === " ") lines.push({ kind: "context", text, oldNo: oldNo++, newNo: newNo++ });
      // "\ No newline at end of file" describes the line before it; the view has no use for it.
    }
    return { header: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, lines };
  });
}

/** Lines added and removed over all hunks. */
export function diffStats(hunks: readonly DiffHunk[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const h of hunks) {
    for (const l of h.lines) {
      if (l.kind === "add") added++;
      else if (l.kind === "remove") removed++;
    }
  }
  return { added, removed };
}
