import { Database } from "bun:sqlite";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { PRIVATE_FILE_MODE } from "./private-data-dir.ts";

/**
 * Opens the SQLite file with the settings every repository relies on: WAL (readers never block the
 * writer), NORMAL sync (durable across a process crash, which is what SIGKILL is), foreign keys on,
 * temporary storage in memory: every savepoint (a nested `Storage.transaction`, e.g. a conversation
 * step inside a scene's commit) keeps its undo pages in a sub-journal, which was otherwise a temporary
 * file opened, written and closed each time (~1,700 writes a second in a busy scene).
 */
export function openDatabase(file: string): Database {
  if (file !== ":memory:") {
    mkdirSync(dirname(file), { recursive: true });
    createPrivately(file);
  }
  const db = new Database(file, { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("PRAGMA temp_store = MEMORY");
  return db;
}

/**
 * Creates the file 0600 when missing, before SQLite does (with the umask's 0644): SQLite gives the
 * -wal and -shm files it makes the database file's mode, so they are private too.
 */
function createPrivately(file: string): void {
  try {
    closeSync(openSync(file, "wx", PRIVATE_FILE_MODE));
  } catch (error) {
    if (!(error instanceof Error && "code" in error && error.code === "EEXIST")) throw error;
  }
}
