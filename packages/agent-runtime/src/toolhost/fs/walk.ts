import * as fs from "node:fs";
import { ToolFailure, errnoCode } from "../tool-failure.ts";
import { TEMP_FILE_PATTERN } from "./atomic-write.ts";
import { entryKind, procPath, type EntryKind } from "./secure-fs.ts";

const C = fs.constants;
const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW;

/** Folders a recursive listing or search shows but never enters. */
export const IGNORED_FOLDERS: ReadonlySet<string> = new Set([".git", "node_modules"]);

export interface WalkEntry {
  /** Path relative to the walk's root, `/`-separated. */
  relPath: string;
  name: string;
  kind: EntryKind;
  stat: fs.Stats;
  /** Descriptor of the folder holding the entry; valid until the walk moves on. */
  dirFd: number;
}

/** Hands control back to the event loop now and then, so a long walk does not stall other work. */
const YIELD_EVERY = 200;

/**
 * Walks a folder opened with `openDirectory`, depth first in name order, through descriptors only
 * (never following a symlink, which is reported as an entry and not entered). The root
 * descriptor stays the caller's to close.
 */
export async function* walkDirectory(rootFd: number, options: { recursive: boolean; signal?: AbortSignal }): AsyncGenerator<WalkEntry, void, void> {
  let seen = 0;
  async function* visit(dirFd: number, prefix: string): AsyncGenerator<WalkEntry, void, void> {
    const names = fs.readdirSync(procPath(dirFd)).sort();
    for (const name of names) {
      if (TEMP_FILE_PATTERN.test(name)) continue;
      if (++seen % YIELD_EVERY === 0) {
        await new Promise((resolve) => setImmediate(resolve));
        if (options.signal?.aborted) throw new ToolFailure("E_ABORTED", "The call was cancelled.");
      }
      let stat: fs.Stats;
      try {
        stat = fs.lstatSync(procPath(dirFd, name));
      } catch (error) {
        if (errnoCode(error) === "ENOENT") continue;
        throw error;
      }
      const relPath = prefix + name;
      const kind = entryKind(stat);
      yield { relPath, name, kind, stat, dirFd };
      if (kind !== "dir" || !options.recursive || IGNORED_FOLDERS.has(name)) continue;
      let childFd: number;
      try {
        childFd = fs.openSync(procPath(dirFd, name), DIR_FLAGS);
      } catch {
        // Replaced or removed since it was listed (a symlink now): not entered.
        continue;
      }
      try {
        yield* visit(childFd, relPath + "/");
      } finally {
        fs.closeSync(childFd);
      }
    }
  }
  yield* visit(rootFd, "");
}
