import { ToolFailure } from "../tool-failure.ts";
import { dominantEol } from "./lines.ts";

interface Block {
  search: string;
  replace: string;
  /** 1-based line of the block's `<<<<<<< SEARCH` marker in the patch. */
  line: number;
}

const SEARCH = /^<{5,9} ?SEARCH\s*$/;
const DIVIDER = /^={5,9}\s*$/;
const REPLACE = /^>{5,9} ?REPLACE\s*$/;

export function isSearchReplace(patch: string): boolean {
  return patch.split(/\r?\n/).some((line) => SEARCH.test(line));
}

function parseBlocks(patch: string, path: string): Block[] {
  const blocks: Block[] = [];
  const lines = patch.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    if (!SEARCH.test(lines[i])) continue;
    const start = i;
    const divider = lines.findIndex((l, k) => k > start && DIVIDER.test(l));
    const end = lines.findIndex((l, k) => k > start && REPLACE.test(l));
    const nextStart = lines.findIndex((l, k) => k > start && SEARCH.test(l));
    if (divider === -1 || end === -1 || divider > end || (nextStart !== -1 && nextStart < end)) {
      throw new ToolFailure(
        "E_SCHEMA_VALIDATION",
        `Search/replace block ${blocks.length + 1} (line ${start + 1} of the patch) is malformed: it needs a \`=======\` line and then a \`>>>>>>> REPLACE\` line.`,
        {
          path,
          block: blocks.length + 1,
        },
      );
    }
    blocks.push({ search: lines.slice(start + 1, divider).join("\n"), replace: lines.slice(divider + 1, end).join("\n"), line: start + 1 });
    i = end;
  }
  return blocks;
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split("\n").length;
}

function occurrences(text: string, search: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(search); at !== -1; at = text.indexOf(search, at + search.length)) found.push(at);
  return found;
}

/** Where the search text would match if indentation and trailing spaces were ignored, as a hint. */
function looseMatchLine(text: string, search: string): number | undefined {
  const norm = (l: string) => l.trim().replace(/\s+/g, " ");
  const hay = text.split(/\r?\n/).map(norm);
  const needle = search.split("\n").map(norm);
  for (let i = 0; i + needle.length <= hay.length; i++) if (needle.every((l, k) => hay[i + k] === l)) return i + 1;
  return undefined;
}

/**
 * Applies `<<<<<<< SEARCH / ======= / >>>>>>> REPLACE` blocks in order, all or nothing: each
 * SEARCH text must occur exactly once in the text as the earlier blocks left it.
 */
export function applySearchReplace(original: string | null, patch: string, path: string): { text: string; applied: number } {
  const blocks = parseBlocks(patch, path);
  if (blocks.length === 0) throw new ToolFailure("E_SCHEMA_VALIDATION", "The patch has no `<<<<<<< SEARCH` blocks.", { path });
  const source = original ?? "";
  const eol = dominantEol(source);
  let text = source;
  blocks.forEach((block, index) => {
    const label = `Block ${index + 1} of ${blocks.length} (line ${block.line} of the patch)`;
    const search = eol === "\r\n" ? block.search.replace(/\n/g, "\r\n") : block.search;
    const replace = eol === "\r\n" ? block.replace.replace(/\n/g, "\r\n") : block.replace;
    if (search === "") {
      if (text !== "") throw new ToolFailure("E_PATCH_FAILED", `${label} has an empty SEARCH part, which only works on an empty or new file. Nothing was changed.`, { path, block: index + 1 });
      text = replace;
      return;
    }
    const found = occurrences(text, search);
    if (found.length === 1) {
      text = text.slice(0, found[0]) + replace + text.slice(found[0] + search.length);
      return;
    }
    if (found.length > 1) {
      const lines = found.map((at) => lineOf(text, at));
      throw new ToolFailure(
        "E_PATCH_FAILED",
        `${label}: the SEARCH text occurs ${found.length} times (lines ${lines.join(", ")}); include more surrounding lines so it occurs once. Nothing was changed.`,
        {
          path,
          block: index + 1,
          lines,
        },
      );
    }
    const loose = looseMatchLine(text, block.search);
    const changedEarlier = text !== source && source.includes(search);
    const why = changedEarlier
      ? "an earlier block changed that text"
      : loose !== undefined
        ? `it matches line ${loose} only when whitespace is ignored; copy the lines exactly, with their indentation`
        : "read the file again and copy the lines exactly";
    throw new ToolFailure("E_PATCH_FAILED", `${label}: the SEARCH text was not found in ${path}; ${why}. Nothing was changed.`, {
      path,
      block: index + 1,
      ...(loose !== undefined ? { looseMatchLine: loose } : {}),
    });
  });
  return { text, applied: blocks.length };
}
