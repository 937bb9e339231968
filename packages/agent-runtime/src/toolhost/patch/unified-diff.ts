import { parsePatch } from "diff";
import type { StructuredPatchHunk } from "diff";
import { ToolFailure } from "../tool-failure.ts";
import { dominantEol, joinLines, splitLines, type Line } from "./lines.ts";
import { messageOf } from "@weft/types";

interface HunkPlan {
  oldSide: string[];
  /** The new side in order; context lines point back at the old line they keep. */
  newSide: Array<{ kind: "keep"; oldIndex: number } | { kind: "add"; text: string }>;
  newEndsWithoutEol: boolean;
}

function stripCr(text: string): string {
  return text.endsWith("\r") ? text.slice(0, -1) : text;
}

function planHunk(hunk: StructuredPatchHunk): HunkPlan {
  const plan: HunkPlan = { oldSide: [], newSide: [], newEndsWithoutEol: false };
  let last: string | undefined;
  for (const raw of hunk.lines) {
    const kind = raw[0];
    const text = stripCr(raw.slice(1));
    if (kind === " ") {
      plan.newSide.push({ kind: "keep", oldIndex: plan.oldSide.length });
      plan.oldSide.push(text);
    } else if (kind === "-") plan.oldSide.push(text);
    else if (kind === "+") plan.newSide.push({ kind: "add", text });
    else if (kind === "\\" && (last === "+" || last === " ")) plan.newEndsWithoutEol = true;
    last = kind;
  }
  return plan;
}

function header(hunk: StructuredPatchHunk): string {
  return `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;
}

function matchesAt(lines: Line[], at: number, expected: string[]): boolean {
  if (at < 0 || at + expected.length > lines.length) return false;
  return expected.every((text, k) => lines[at + k].text === text);
}

/** Where the hunk's old lines are, nearest to where the header says, never before `min`. */
function locate(lines: Line[], expected: string[], wanted: number, min: number): number | undefined {
  const last = lines.length - expected.length;
  for (let distance = 0; wanted - distance >= min || wanted + distance <= last; distance++) {
    if (wanted + distance >= min && matchesAt(lines, wanted + distance, expected)) return wanted + distance;
    if (distance > 0 && wanted - distance >= min && matchesAt(lines, wanted - distance, expected)) return wanted - distance;
  }
  return undefined;
}

/** Says why the old lines do not match at the position the header gives. */
function mismatch(lines: Line[], expected: string[], at: number): string {
  const start = Math.max(0, Math.min(at, lines.length));
  for (let k = 0; k < expected.length; k++) {
    const actual = lines[start + k];
    if (!actual) return `the file ends at line ${lines.length}, before the hunk's line ${JSON.stringify(expected[k])}`;
    if (actual.text !== expected[k]) return `line ${start + k + 1} should be ${JSON.stringify(expected[k])} but the file has ${JSON.stringify(actual.text)}`;
  }
  return "its lines appear only before an earlier hunk";
}

/**
 * Applies a one-file unified diff, all or nothing: hunks are placed at their stated line (or the
 * nearest place their context matches exactly); if one cannot be placed, nothing is changed and
 * the error says which hunk and why.
 */
export function applyUnifiedDiff(original: string | null, patchText: string, path: string): { text: string; applied: number } {
  let files;
  try {
    files = parsePatch(patchText);
  } catch (error) {
    throw new ToolFailure("E_SCHEMA_VALIDATION", `The patch is not a valid unified diff: ${messageOf(error)}.`, { path });
  }
  const withHunks = files.filter((f) => f.hunks.length > 0);
  if (withHunks.length === 0) throw new ToolFailure("E_SCHEMA_VALIDATION", "The patch has no hunks: a unified diff needs `@@ -a,b +c,d @@` lines followed by ' ', '-' and '+' lines.", { path });
  if (withHunks.length > 1) throw new ToolFailure("E_SCHEMA_VALIDATION", `The patch changes ${withHunks.length} files; send one patch per file, with \`path\` naming it.`, { path });
  const hunks = withHunks[0].hunks;
  if (original === null && hunks.some((h) => h.oldLines > 0)) {
    throw new ToolFailure("ENOENT", `${path} does not exist, and the patch expects existing lines. Create the file with fs.write.`, { path });
  }
  const source = original ?? "";
  const eol = dominantEol(source);
  const lines = splitLines(source);
  let delta = 0;
  let min = 0;
  hunks.forEach((hunk, index) => {
    const plan = planHunk(hunk);
    const stated = (hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1) + delta;
    const at = plan.oldSide.length === 0 ? Math.min(Math.max(stated, min), lines.length) : locate(lines, plan.oldSide, Math.max(stated, 0), min);
    if (at === undefined) {
      const reason = mismatch(lines, plan.oldSide, stated);
      throw new ToolFailure(
        "E_PATCH_FAILED",
        `Hunk ${index + 1} of ${hunks.length} (${header(hunk)}) does not apply to ${path}: ${reason}, and its lines were not found anywhere else. Nothing was changed; read the file again and rebuild the patch.`,
        {
          path,
          hunk: index + 1,
          header: header(hunk),
          reason,
        },
      );
    }
    const replaced = lines.slice(at, at + plan.oldSide.length);
    const next: Line[] = plan.newSide.map((entry) => (entry.kind === "keep" ? { ...replaced[entry.oldIndex] } : { text: entry.text, eol }));
    if (plan.newEndsWithoutEol && next.length > 0) next[next.length - 1].eol = "";
    lines.splice(at, plan.oldSide.length, ...next);
    delta += next.length - plan.oldSide.length;
    min = at + next.length;
  });
  // A line that lost its place at the end of the file gets a line ending again.
  for (let i = 0; i < lines.length - 1; i++) if (lines[i].eol === "") lines[i].eol = eol;
  return { text: joinLines(lines), applied: hunks.length };
}
