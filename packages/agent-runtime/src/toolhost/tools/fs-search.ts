import * as fs from "node:fs";
import picomatch from "picomatch";
import { z } from "zod";
import type { FsSearchMatch, FsSearchOk, ToolName } from "@weft/types";
import { openDirectory, openFileIn, procPath, readAll, type Located } from "../fs/secure-fs.ts";
import { decodeText, looksBinary } from "../fs/text.ts";
import { childPath } from "../fs/virtual-path.ts";
import { walkDirectory } from "../fs/walk.ts";
import { defineTool, type ToolEnv } from "../tool.ts";
import { ToolFailure, errnoCode } from "../tool-failure.ts";
import { compileSearchPattern } from "./search-pattern.ts";

const MAX_LINE_CHARS = 500;
/** A search shows file contents: files the rules keep from either tool are left out. */
const SEARCH_TOOLS: readonly ToolName[] = ["fs.search", "fs.read"];
const FILE_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

export const FsSearchArgsSchema = z
  .object({
    pattern: z.string().min(1).describe("Text to find; a regular expression when `regex` is true"),
    path: z.string().default("@project/").describe("Folder or file to search, as a mount path (default @project/)"),
    regex: z.boolean().default(false).describe("Treat the pattern as a JavaScript regular expression (default: literal text)"),
    caseSensitive: z.boolean().default(true).describe("Match upper and lower case exactly (default true)"),
    contextLines: z.number().int().min(0).max(10).default(0).describe("Lines of context to include before and after each match (0-10)"),
    include: z.string().min(1).optional().describe("Only search files whose path below `path` matches this glob, e.g. **/*.md"),
    maxMatches: z.number().int().min(1).optional().describe("Stop after this many matches (capped by the host's limit)"),
  })
  .strict();
type FsSearchArgs = z.output<typeof FsSearchArgsSchema>;

type Skip = "binary" | "tooLarge" | "unsafe";

function clip(line: string): string {
  return line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) + "…" : line;
}

class SearchRun {
  readonly matches: FsSearchMatch[] = [];
  readonly skipped: Record<Skip, number> = { binary: 0, tooLarge: 0, unsafe: 0 };
  filesScanned = 0;
  stopReason: "matches" | "files" | "time" | undefined;
  private readonly deadline: number;
  private readonly maxMatches: number;

  constructor(
    private readonly args: FsSearchArgs,
    private readonly env: ToolEnv,
    private readonly matcher: RegExp,
  ) {
    this.deadline = performance.now() + env.limits.searchTimeMs;
    this.maxMatches = Math.min(args.maxMatches ?? env.limits.maxSearchMatches, env.limits.maxSearchMatches);
  }

  get stopped(): boolean {
    return this.stopReason !== undefined;
  }

  /** Scans one open regular file, given its size and link count. */
  async scan(fd: number, size: number, nlink: number, virtualPath: string): Promise<void> {
    if (nlink > 1) {
      this.skipped.unsafe++;
      return;
    }
    if (size > this.env.limits.maxSearchFileBytes) {
      this.skipped.tooLarge++;
      return;
    }
    if (this.filesScanned >= this.env.limits.maxSearchFiles) this.stopReason = "files";
    else if (performance.now() > this.deadline) this.stopReason = "time";
    if (this.stopped) return;
    const data = await readAll(fd, size, this.env.limits.maxSearchFileBytes);
    const text = looksBinary(data) ? null : decodeText(data);
    if (text === null) {
      this.skipped.binary++;
      return;
    }
    this.filesScanned++;
    const lines = text.split(/\r?\n/);
    const context = this.args.contextLines;
    for (let i = 0; i < lines.length; i++) {
      const found = this.matcher.exec(lines[i]);
      if (!found) continue;
      if (this.matches.length === this.maxMatches) {
        this.stopReason = "matches";
        return;
      }
      this.matches.push({
        path: virtualPath,
        line: i + 1,
        column: found.index + 1,
        text: clip(lines[i]),
        ...(context > 0 ? { before: lines.slice(Math.max(0, i - context), i).map(clip), after: lines.slice(i + 1, i + 1 + context).map(clip) } : {}),
      });
    }
  }
}

async function searchFolder(dirFd: number, located: Located, run: SearchRun, env: ToolEnv, include: ((path: string) => boolean) | undefined): Promise<void> {
  for await (const entry of walkDirectory(dirFd, { recursive: true, signal: env.signal })) {
    if (run.stopped) break;
    if (entry.kind !== "file") continue;
    if (include && !include(entry.relPath)) continue;
    const virtualPath = childPath(located.virtual, entry.relPath).text;
    if (env.pathRules.blocks(SEARCH_TOOLS, virtualPath)) continue;
    let fd: number;
    try {
      fd = fs.openSync(procPath(entry.dirFd, entry.name), FILE_FLAGS);
    } catch (error) {
      // Replaced by a symlink or removed since it was listed.
      if (errnoCode(error) === "ELOOP" || errnoCode(error) === "ENOENT") continue;
      throw error;
    }
    try {
      const stat = fs.fstatSync(fd);
      if (!stat.isFile()) continue;
      await run.scan(fd, stat.size, stat.nlink, virtualPath);
    } finally {
      fs.closeSync(fd);
    }
  }
}

async function searchFile(located: Located, run: SearchRun, env: ToolEnv): Promise<void> {
  if (env.pathRules.blocks(SEARCH_TOOLS, located.virtual.text)) {
    throw new ToolFailure(
      "E_PERMISSION_DENIED",
      `fs.search on ${located.virtual.text} is denied: the permission settings keep this file from ${SEARCH_TOOLS.join(" or ")}. Do not retry it; search other files or ask the user.`,
      { path: located.virtual.text },
    );
  }
  const dirFd = openDirectory(located, { depth: located.virtual.segments.length - 1 });
  try {
    const opened = openFileIn(dirFd, located);
    if (!opened) throw new ToolFailure("ENOENT", `${located.virtual.text} does not exist.`, { path: located.virtual.text });
    try {
      await run.scan(opened.fd, opened.stat.size, opened.stat.nlink, located.virtual.text);
    } finally {
      fs.closeSync(opened.fd);
    }
  } finally {
    fs.closeSync(dirFd);
  }
}

/** The folder's descriptor, or null when the path names a file (which is then searched alone). */
function openFolderOrNull(located: Located): number | null {
  try {
    return openDirectory(located);
  } catch (error) {
    if (error instanceof ToolFailure && error.code === "ENOTDIR" && error.details?.notDir === located.virtual.text) return null;
    throw error;
  }
}

const STOP_HINTS = {
  matches: "Stopped at the match limit; narrow the search with `path`, `include` or a more specific pattern.",
  files: "Stopped at the limit of files scanned; narrow the search with `path` or `include`.",
  time: "Stopped at the time limit; narrow the search with `path` or `include`.",
} as const;

export const fsSearch = defineTool({
  name: "fs.search",
  targetKind: "path",
  args: FsSearchArgsSchema,
  plan(args, env) {
    const located = env.mounts.locate(args.path, { intent: "read", stateScope: env.stateScope, maxPathBytes: env.limits.maxPathBytes });
    const matcher = compileSearchPattern(args.pattern, { regex: args.regex, caseSensitive: args.caseSensitive });
    const include = args.include ? picomatch(args.include, { dot: true }) : undefined;
    return {
      target: located.virtual.text,
      async execute(): Promise<FsSearchOk> {
        const run = new SearchRun(args, env, matcher);
        const dirFd = openFolderOrNull(located);
        if (dirFd === null) await searchFile(located, run, env);
        else {
          try {
            await searchFolder(dirFd, located, run, env, include);
          } finally {
            fs.closeSync(dirFd);
          }
        }
        return {
          ok: true,
          matches: run.matches,
          truncated: run.stopped,
          ...(run.stopReason ? { hint: STOP_HINTS[run.stopReason] } : {}),
          stats: { filesScanned: run.filesScanned, matchesFound: run.matches.length, filesSkipped: run.skipped },
        };
      },
    };
  },
});
