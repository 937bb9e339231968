import * as fs from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { ToolFailure, errnoCode } from "../tool-failure.ts";
import type { VirtualPath } from "./virtual-path.ts";

/**
 * Symlink-proof file access inside a mount. Every path is opened one segment at a time, relative
 * to the directory already opened, through `/proc/self/fd/<dirfd>/<name>` (Linux's equivalent of
 * `openat`): the kernel resolves `/proc/self/fd/<dirfd>` to the directory the descriptor holds, not
 * to a path, so swapping a folder for a symlink after a check cannot redirect the walk. Each step
 * uses O_NOFOLLOW, and after opening, the kernel's own path of the descriptor is compared with the
 * expected real path — a symlink anywhere, or one swapped in at any moment, is refused.
 */

const C = fs.constants;
const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW;
/** O_NONBLOCK so that opening a FIFO never hangs; it does not change reads of regular files. */
const FILE_READ_FLAGS = C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK;

/** Where a virtual path lands: the mount's real root folder and the expected real path below it. */
export interface Located {
  virtual: VirtualPath;
  root: string;
  real: string;
}

export function procPath(fd: number, name?: string): string {
  return name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`;
}

export function assertProcFdAvailable(): void {
  try {
    fs.readlinkSync("/proc/self/fd/0");
  } catch {
    throw new Error("The tool host needs Linux's /proc/self/fd to open files without following symlinks; it is not available here.");
  }
}

function sandbox(located: Located, rule: string, fix: string, details: Record<string, unknown> = {}): ToolFailure {
  return new ToolFailure("E_SANDBOX_VIOLATION", `Refused path ${JSON.stringify(located.virtual.text)}: ${rule}. ${fix}`, { path: located.virtual.text, rule, ...details });
}

function virtualPrefix(located: Located, depth: number): string {
  return `@${located.virtual.mount}/${located.virtual.segments.slice(0, depth).join("/")}`;
}

/** Refuses a descriptor whose kernel path is not exactly the expected one (a symlink or swap got in the way). */
export function assertDescriptorAt(fd: number, expected: string, located: Located): void {
  let actual: string;
  try {
    actual = fs.readlinkSync(procPath(fd));
  } catch {
    throw sandbox(located, "its real location could not be verified", "Try again.");
  }
  if (actual !== expected) {
    throw sandbox(
      located,
      "it resolved to a different real location than its path says (a symbolic link, or the folder was replaced while it was being opened)",
      "Use the real path of the file, without links.",
    );
  }
}

function explainOpenError(error: unknown, parentFd: number, name: string, located: Located, depth: number): ToolFailure {
  const code = errnoCode(error);
  const shown = virtualPrefix(located, depth);
  if (code === "ENOENT") return new ToolFailure("ENOENT", `${shown} does not exist.`, { path: located.virtual.text, missing: shown });
  if (code === "ELOOP" || code === "ENOTDIR" || code === "EMLINK") {
    let entry: fs.Stats | undefined;
    try {
      entry = fs.lstatSync(procPath(parentFd, name));
    } catch {
      entry = undefined;
    }
    if (entry?.isSymbolicLink() || code === "ELOOP") {
      return sandbox(located, `${shown} is a symbolic link; links are never followed`, "Use the real path of the file, without links.", { link: shown });
    }
    if (entry === undefined || entry.isDirectory()) {
      // Not a folder when opened, but a folder or gone now: something swapped it meanwhile.
      return sandbox(located, `${shown} changed while it was being opened (it was briefly a link or a file)`, "Try again once the folder is stable.", { changed: shown });
    }
    return new ToolFailure("ENOTDIR", `${shown} is not a folder.`, { path: located.virtual.text, notDir: shown });
  }
  if (code === "EACCES" || code === "EPERM") return new ToolFailure("EACCES", `${shown} is not accessible: the operating system denies permission.`, { path: located.virtual.text });
  return new ToolFailure("E_INTERNAL", `Could not open ${shown}: ${code ?? String(error)}.`, { path: located.virtual.text });
}

/**
 * Opens the folder made of the first `depth` segments (all of them by default), creating missing
 * folders when `create` is set. Returns a directory descriptor the caller must close.
 */
export function openDirectory(located: Located, options: { depth?: number; create?: boolean } = {}): number {
  const segments = located.virtual.segments.slice(0, options.depth ?? located.virtual.segments.length);
  let fd: number;
  try {
    fd = fs.openSync(located.root, DIR_FLAGS);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ELOOP" || code === "ENOTDIR") throw sandbox(located, `the @${located.virtual.mount}/ mount's folder has been replaced by a link or file`, "Ask the user to restore the folder.");
    throw new ToolFailure("E_INTERNAL", `The @${located.virtual.mount}/ mount's folder cannot be opened (${code ?? String(error)}).`);
  }
  try {
    assertDescriptorAt(fd, located.root, located);
    for (let i = 0; i < segments.length; i++) {
      const name = segments[i];
      let next: number;
      try {
        next = fs.openSync(procPath(fd, name), DIR_FLAGS);
      } catch (error) {
        if (errnoCode(error) !== "ENOENT" || !options.create) throw explainOpenError(error, fd, name, located, i + 1);
        try {
          fs.mkdirSync(procPath(fd, name), 0o755);
        } catch (mkdirError) {
          if (errnoCode(mkdirError) !== "EEXIST") throw explainOpenError(mkdirError, fd, name, located, i + 1);
        }
        try {
          next = fs.openSync(procPath(fd, name), DIR_FLAGS);
        } catch (retryError) {
          throw explainOpenError(retryError, fd, name, located, i + 1);
        }
      }
      fs.closeSync(fd);
      fd = next;
    }
    assertDescriptorAt(fd, segments.length === 0 ? located.root : join(located.root, ...segments), located);
    return fd;
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

export type EntryKind = "file" | "dir" | "symlink" | "other";

export function entryKind(stat: fs.Stats): EntryKind {
  if (stat.isFile()) return "file";
  if (stat.isDirectory()) return "dir";
  if (stat.isSymbolicLink()) return "symlink";
  return "other";
}

function describeSpecial(stat: fs.Stats): string {
  if (stat.isFIFO()) return "a FIFO (named pipe)";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice()) return "a character device";
  if (stat.isBlockDevice()) return "a block device";
  return "not a regular file";
}

/** Refuses anything but a regular file with a single link (hard links could alias files outside the mount). */
export function assertPlainFile(stat: fs.Stats, located: Located): void {
  if (stat.isDirectory()) throw new ToolFailure("EISDIR", `${located.virtual.text} is a folder, not a file. Use fs.list to see what it holds.`, { path: located.virtual.text });
  if (stat.isSymbolicLink()) throw sandbox(located, "it is a symbolic link; links are never followed", "Use the real path of the file, without links.");
  if (!stat.isFile()) throw sandbox(located, `it is ${describeSpecial(stat)}`, "Only regular files can be read or written.", { kind: describeSpecial(stat) });
  if (stat.nlink > 1) {
    throw sandbox(located, `it is a hard link (${stat.nlink} names share this file, some possibly outside the mount)`, "Use a regular file with a single name.", { nlink: stat.nlink });
  }
}

/** Opens a plain file in an open folder for reading; null when it does not exist. */
export function openFileIn(dirFd: number, located: Located): { fd: number; stat: fs.Stats } | null {
  const name = located.virtual.segments[located.virtual.segments.length - 1];
  const depth = located.virtual.segments.length;
  let before: fs.Stats;
  try {
    before = fs.lstatSync(procPath(dirFd, name));
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return null;
    throw explainOpenError(error, dirFd, name, located, depth);
  }
  // Checked before opening as well as after: opening a device can itself have effects.
  assertPlainFile(before, located);
  let fd: number;
  try {
    fd = fs.openSync(procPath(dirFd, name), FILE_READ_FLAGS);
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return null;
    throw explainOpenError(error, dirFd, name, located, depth);
  }
  try {
    const stat = fs.fstatSync(fd);
    assertPlainFile(stat, located);
    assertDescriptorAt(fd, located.real, located);
    return { fd, stat };
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

const readChunk = promisify(fs.read);

/** Reads a whole open file without blocking; `limit` guards against a file that grew since it was measured. */
export async function readAll(fd: number, size: number, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  const chunk = Buffer.allocUnsafe(Math.min(Math.max(size, 1), 1 << 20));
  for (;;) {
    const { bytesRead: n } = await readChunk(fd, chunk, 0, chunk.length, null);
    if (n === 0) break;
    total += n;
    if (total > limit) throw new ToolFailure("E_READ_LIMIT", `The file grew past ${limit} bytes while it was read.`, { limit });
    chunks.push(Buffer.from(chunk.subarray(0, n)));
  }
  return Buffer.concat(chunks, total);
}

/** Reads a plain file inside a mount; null when it does not exist. */
export async function readFileSecure(located: Located, limit: number): Promise<{ data: Buffer; stat: fs.Stats } | null> {
  if (located.virtual.segments.length === 0) throw new ToolFailure("EISDIR", `${located.virtual.text} is a mount's root folder, not a file.`, { path: located.virtual.text });
  const dirFd = openDirectory(located, { depth: located.virtual.segments.length - 1 });
  try {
    const opened = openFileIn(dirFd, located);
    if (!opened) return null;
    try {
      if (opened.stat.size > limit) {
        throw new ToolFailure(
          "E_READ_LIMIT",
          `${located.virtual.text} is ${opened.stat.size} bytes, over the limit of ${limit}. Use fs.search to find the part you need, then fs.read with offset and limit.`,
          {
            path: located.virtual.text,
            bytes: opened.stat.size,
            limit,
          },
        );
      }
      return { data: await readAll(opened.fd, opened.stat.size, limit), stat: opened.stat };
    } finally {
      fs.closeSync(opened.fd);
    }
  } finally {
    fs.closeSync(dirFd);
  }
}
