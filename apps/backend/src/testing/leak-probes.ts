import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "@weft/types";

/** A logger at the most verbose level that keeps every line, to prove a secret never reaches a log. */
export function capturingLogger(lines: string[]): Logger {
  const write = (level: string) => (message: string, fields?: Record<string, unknown>) => void lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  const logger: Logger = { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error"), child: () => logger };
  return logger;
}

/** The database as it is on disk: the main file, its write-ahead log and shared memory. */
export function dbBytes(dataDir: string): Buffer {
  const files = ["weft.sqlite", "weft.sqlite-wal", "weft.sqlite-shm"].map((f) => join(dataDir, f)).filter((f) => existsSync(f));
  return Buffer.concat(files.map((f) => readFileSync(f)));
}
