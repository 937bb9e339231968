import { closest } from "fastest-levenshtein";
import { MOUNT_NAMES, type MountName } from "@weft/types";
import { ToolFailure } from "../tool-failure.ts";

/** A path as the model writes it, checked and split: `@project/src/a.ts` → project, [src, a.ts]. */
export interface VirtualPath {
  mount: MountName;
  /** Path segments inside the mount; empty for the mount's root. */
  segments: string[];
  /** Canonical form, e.g. `@project/src/a.ts` (`@project/` for the root). */
  text: string;
}

const MOUNT_HINT = "Paths start with a mount: @project/ (the project, read-write), @pkg/ (installed packages, read-only) or @state/ (this run's private folder).";
const NAME_MAX_BYTES = 255;
const encoder = new TextEncoder();

function violation(path: string, rule: string, fix: string, details: Record<string, unknown> = {}): ToolFailure {
  return new ToolFailure("E_SANDBOX_VIOLATION", `Refused path ${JSON.stringify(path)}: ${rule}. ${fix}`, { path, rule, ...details });
}

function codePoint(ch: string): string {
  return "U+" + (ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0");
}

/** Control characters, and characters that are invisible or reorder text, so a path reads as something it is not. */
// eslint-disable-next-line no-control-regex, no-misleading-character-class -- matching these code points (written as escapes) is the point
const HIDDEN_CHAR = /[\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8]/u;

/** Symbols drawn like `/` or `\\` that Unicode normalisation leaves alone; as names they only deceive readers. */
const SLASH_LOOKALIKE = /[\u2044\u2215\u2216\u2571\u2572\u29f5\u29f8\u29f9\ufe68]/u;

/**
 * Checks a model-supplied path as text and splits it. Everything that could smuggle a path outside
 * its mount is refused here, before the file system is touched: NUL and control characters,
 * overlong paths, backslashes, percent escapes, absolute and home paths, unknown mounts, `..`
 * segments and Unicode characters that normalise to dots or slashes.
 */
export function parseVirtualPath(path: string, maxPathBytes: number): VirtualPath {
  if (path.length === 0) throw violation(path, "the path is empty", MOUNT_HINT);
  const hidden = HIDDEN_CHAR.exec(path);
  if (hidden) {
    const what = hidden[0] === "\u0000" ? "a NUL byte" : `the control or invisible character ${codePoint(hidden[0])}`;
    throw violation(path, `it contains ${what} at index ${hidden.index}`, "Write the path with visible characters only.", { index: hidden.index });
  }
  const bytes = encoder.encode(path).length;
  if (bytes > maxPathBytes) {
    throw violation(path.slice(0, 80) + "…", `it is ${bytes} bytes long, over the limit of ${maxPathBytes}`, "Use a shorter path.", { bytes, limit: maxPathBytes });
  }
  const slashLike = SLASH_LOOKALIKE.exec(path);
  if (slashLike) {
    throw violation(path, `it contains ${codePoint(slashLike[0])}, a look-alike of a slash`, "Separate folders with a plain `/` and use no slash-like symbols in names.", { index: slashLike.index });
  }
  if (path.includes("\\")) throw violation(path, "it contains a backslash", "Separate folders with `/`, e.g. @project/src/a.ts.");
  const escape = /%[0-9a-fA-F]{2}/.exec(path);
  if (escape) {
    throw violation(
      path,
      `it contains the percent escape ${escape[0]}; paths are never URL-decoded, and escapes are refused so that encoded \`..\` or \`/\` cannot slip through`,
      "Write the characters themselves.",
    );
  }
  if (path.startsWith("/")) throw violation(path, "it is an absolute path; only mount paths are visible", MOUNT_HINT);
  if (path.startsWith("~")) throw violation(path, "it refers to a home folder; only mount paths are visible", MOUNT_HINT);
  if (/^[A-Za-z]:/.test(path) && !path.startsWith("@")) throw violation(path, "it has a drive letter or URL scheme; only mount paths are visible", MOUNT_HINT);

  const prefix = /^@([^/]*)(?:\/|$)/.exec(path);
  if (!prefix) {
    const normalised = path.normalize("NFKC");
    if (normalised.startsWith("@")) throw violation(path, "it starts with a look-alike of `@`", MOUNT_HINT);
    throw violation(path, "it does not start with a mount", `${MOUNT_HINT} For example @project/${path}.`);
  }
  const mountName = prefix[1];
  if (!(MOUNT_NAMES as readonly string[]).includes(mountName)) {
    const lookalike = mountName.normalize("NFKC").toLowerCase();
    const nearest = (MOUNT_NAMES as readonly string[]).includes(lookalike) ? lookalike : closest(mountName.toLowerCase(), [...MOUNT_NAMES]);
    throw violation(path, `@${mountName}/ is not a mount`, `Did you mean @${nearest}/? ${MOUNT_HINT}`, { mount: mountName });
  }
  const mount = mountName as MountName;

  const segments: string[] = [];
  for (const segment of path.slice(prefix[0].length).split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") throw violation(path, "it contains a `..` segment", "Name the target from its mount instead, e.g. @project/docs/a.md, without `..`.");
    const folded = segment.normalize("NFKC");
    if (folded !== segment && (/^\.+$/.test(folded) || /[/\\]/.test(folded) || folded.includes(".."))) {
      throw violation(path, `the segment ${JSON.stringify(segment)} uses look-alike characters that read as ${JSON.stringify(folded)}`, "Use plain `.` and `/` characters, and no `..` segments.");
    }
    if (encoder.encode(segment).length > NAME_MAX_BYTES) {
      throw violation(path, `the name ${JSON.stringify(segment.slice(0, 40) + "…")} is over ${NAME_MAX_BYTES} bytes`, "Use shorter file and folder names.");
    }
    segments.push(segment);
  }
  return { mount, segments, text: `@${mount}/${segments.join("/")}` };
}

/** The virtual path of a child entry. */
export function childPath(parent: VirtualPath, name: string): VirtualPath {
  const segments = [...parent.segments, name];
  return { mount: parent.mount, segments, text: `@${parent.mount}/${segments.join("/")}` };
}
