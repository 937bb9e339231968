import * as fs from "node:fs";
import { join } from "node:path";
import type { Logger } from "@weft/types";

/** The data folder and the folders Weft makes in it: its user's alone. */
export const PRIVATE_FOLDER_MODE = 0o700;
/** Every file Weft writes in the data folder: the database and its -wal and -shm, the keys, the token, the audit log. */
export const PRIVATE_FILE_MODE = 0o600;
/** Folders in the data folder whose files are Weft's own, made private too; `state/` holds the agents' files, whose modes are theirs. */
const OWN_FOLDERS = ["audit"];

/**
 * Makes the data folder private to Weft's user, creating it when missing: the folder 0700, each file
 * directly in it and in `audit/` 0600, each folder in it 0700. Installs made before this (the umask's
 * 0755 and 0644: other local users could copy the database with its password hashes and runs) are
 * fixed at start. Links are never followed: each entry is opened with O_NOFOLLOW and changed through
 * its descriptor. What cannot be changed (another owner, a file system without modes) is logged with
 * the fix, and the start goes on.
 */
export function ensurePrivateDataDir(dataDir: string, log: Logger): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  const failures: string[] = [];
  // The folder itself may be a link the owner configured: that one is followed.
  tighten(dataDir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY, PRIVATE_FOLDER_MODE, failures);
  for (const folder of [dataDir, ...OWN_FOLDERS.map((name) => join(dataDir, name))]) {
    for (const entry of entries(folder)) {
      const path = join(folder, entry.name);
      if (entry.isFile()) tighten(path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK, PRIVATE_FILE_MODE, failures);
      else if (entry.isDirectory()) tighten(path, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW, PRIVATE_FOLDER_MODE, failures);
    }
  }
  if (failures.length > 0) {
    log.warn("parts of the data folder could not be made private to Weft's user", {
      failures,
      fix: `make Weft's user their owner (chown -R), or run: chmod 700 ${dataDir} && chmod 600 ${dataDir}/weft.sqlite*`,
    });
  }
}

function entries(folder: string): fs.Dirent[] {
  try {
    return fs.readdirSync(folder, { withFileTypes: true });
  } catch {
    // Not made yet (audit/ before the first tool call).
    return [];
  }
}

/** Takes away what `mode` does not grant (group and others), through a descriptor; never widens. */
function tighten(path: string, flags: number, mode: number, failures: string[]): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(path, flags);
    const current = fs.fstatSync(fd).mode & 0o7777;
    if ((current & ~mode) !== 0) fs.fchmodSync(fd, current & mode);
  } catch (error) {
    // Gone in the meantime, or a link put in its place: nothing of Weft's to fix.
    const code = error instanceof Error && "code" in error ? error.code : undefined;
    if (code !== "ENOENT" && code !== "ELOOP") failures.push(`${path}: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
