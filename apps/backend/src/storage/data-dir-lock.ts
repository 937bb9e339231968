import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { PRIVATE_FILE_MODE, PRIVATE_FOLDER_MODE } from "./private-data-dir.ts";

/** The file in a data folder that says which process serves its SQLite database. */
export const DATA_DIR_LOCK_FILE = "weft.lock";

/** Another server process uses this data folder's SQLite database: the start stops with this message. */
export class DataDirInUseError extends Error {
  readonly code = "DATA_DIR_IN_USE";
  constructor(dataDir: string, pid: number) {
    super(
      `The data folder ${dataDir} is in use by another Weft (process ${pid}): two servers on one SQLite database would number the same event streams twice. Stop that one first, or point WEFT_DATA_DIR at another folder.`,
    );
    this.name = "DataDirInUseError";
  }
}

interface LockOwner {
  pid: number;
  /** The process's start time (Linux `/proc/<pid>/stat`), so a pid the system reused is not taken for the owner. */
  start?: string;
}

/** Servers of this process per data folder: tests run several in one process, one after another or side by side. */
const held = new Map<string, number>();

/**
 * Takes the data folder for this process's server (SQLite mode: PostgreSQL is shared by design), or
 * throws `DataDirInUseError` while a live process holds it. A lock left by a process that is gone
 * (killed, crashed) is taken over. Returns the release, which removes the file once no server of
 * this process uses the folder. `weft compact` and other short tools open the database without it.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  const file = join(dataDir, DATA_DIR_LOCK_FILE);
  const mine = JSON.stringify(ownerOf(process.pid));
  const release = () => {
    const count = (held.get(file) ?? 1) - 1;
    if (count > 0) return void held.set(file, count);
    held.delete(file);
    try {
      if (readFileSync(file, "utf8") === mine) rmSync(file, { force: true });
    } catch {
      // Already gone.
    }
  };
  const servers = held.get(file);
  if (servers !== undefined) {
    held.set(file, servers + 1);
    return release;
  }
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, "wx", PRIVATE_FILE_MODE);
      writeSync(fd, mine);
      closeSync(fd);
      held.set(file, 1);
      return release;
    } catch (error) {
      if (!(error instanceof Error && "code" in error && error.code === "EEXIST")) throw error;
      const owner = readOwner(file);
      if (owner && alive(owner)) throw new DataDirInUseError(dataDir, owner.pid);
      // Its process is gone: the lock is stale. Another start may take it first; then the next attempt reads that one's.
      if (attempt > 0) throw new DataDirInUseError(dataDir, owner?.pid ?? 0);
      rmSync(file, { force: true });
    }
  }
}

function ownerOf(pid: number): LockOwner {
  const start = processStart(pid);
  return start === undefined ? { pid } : { pid, start };
}

function readOwner(file: string): LockOwner | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
    if (typeof parsed !== "object" || parsed === null || !("pid" in parsed) || typeof parsed.pid !== "number") return undefined;
    return "start" in parsed && typeof parsed.start === "string" ? { pid: parsed.pid, start: parsed.start } : { pid: parsed.pid };
  } catch {
    // Unreadable or half-written (a start killed mid-write): nobody can be shown to hold it.
    return undefined;
  }
}

/** The process's start time, "zombie" for one that has exited but not been reaped, undefined without /proc. */
function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // After the command name (in parentheses, which may hold spaces): state is field 3, start time field 22.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[0] === "Z" ? "zombie" : fields[19];
  } catch {
    return undefined;
  }
}

function alive(owner: LockOwner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    // EPERM: it exists, under another user.
    return error instanceof Error && "code" in error && error.code === "EPERM";
  }
  const start = processStart(owner.pid);
  if (start === "zombie") return false;
  return owner.start === undefined || start === undefined || start === owner.start;
}
