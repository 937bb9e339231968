import * as fs from "node:fs";
import { randomUUID } from "node:crypto";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { ToolFailure, errnoCode } from "../tool-failure.ts";
import { assertDescriptorAt, openFileIn, procPath, readAll, type Located } from "./secure-fs.ts";

const C = fs.constants;
const TEMP_FLAGS = C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW;
const CHUNK = 1 << 20;

/** Temporary files of an unfinished write; hidden from listings and searches. */
export const TEMP_FILE_PATTERN = /^\.weft-[0-9a-f-]{36}\.tmp$/;

export interface ExistingFile {
  data: Buffer;
  mode: number;
}

/** The current content of the target, or null when it does not exist. */
export async function readExisting(dirFd: number, located: Located, limit: number): Promise<ExistingFile | null> {
  const opened = openFileIn(dirFd, located);
  if (!opened) return null;
  try {
    if (opened.stat.size > limit) {
      throw new ToolFailure("E_WRITE_LIMIT", `${located.virtual.text} is already ${opened.stat.size} bytes, over the write limit of ${limit}; it cannot be changed by this tool.`, {
        path: located.virtual.text,
        bytes: opened.stat.size,
        limit,
      });
    }
    return { data: await readAll(opened.fd, opened.stat.size, limit), mode: opened.stat.mode & 0o777 };
  } finally {
    fs.closeSync(opened.fd);
  }
}

const writeChunk = promisify(fs.write);
const fsync = promisify(fs.fsync);

async function writeFully(fd: number, data: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await writeChunk(fd, data, offset, Math.min(CHUNK, data.length - offset));
    offset += bytesWritten;
  }
}

/**
 * Replaces (or creates) a file atomically: the content goes to a temporary file in the same
 * folder, is flushed to disk, then renamed over the target, and the folder is flushed. A reader or
 * a crash sees the old content or the new, never a part. `createOnly` links instead of renaming,
 * which fails if the name appeared in the meantime.
 */
export async function atomicReplace(dirFd: number, located: Located, data: Uint8Array, options: { createOnly: boolean; mode: number }): Promise<void> {
  const name = located.virtual.segments[located.virtual.segments.length - 1];
  const tempName = `.weft-${randomUUID()}.tmp`;
  const tempPath = procPath(dirFd, tempName);
  const fd = fs.openSync(tempPath, TEMP_FLAGS, options.mode);
  let placed = false;
  try {
    try {
      assertDescriptorAt(fd, join(dirname(located.real), tempName), located);
      await writeFully(fd, data);
      await fsync(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (options.createOnly) {
      try {
        fs.linkSync(tempPath, procPath(dirFd, name));
      } catch (error) {
        if (errnoCode(error) === "EEXIST") {
          throw new ToolFailure("EEXIST", `${located.virtual.text} already exists and mode is "create". Use mode "overwrite" to replace it.`, { path: located.virtual.text });
        }
        throw error;
      }
      fs.unlinkSync(tempPath);
    } else {
      fs.renameSync(tempPath, procPath(dirFd, name));
    }
    placed = true;
    await fsync(dirFd);
  } finally {
    if (!placed) {
      try {
        fs.unlinkSync(tempPath);
      } catch {
        // Already gone: nothing to clean up.
      }
    }
  }
}
