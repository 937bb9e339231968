import * as fs from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import { createLogger, type Logger } from "@weft/types";

export const AuditRecordSchema = z.object({
  ts: z.string(),
  runId: z.string().optional(),
  agentId: z.string().optional(),
  tool: z.string(),
  /** The name the caller used, when it had to be repaired (`FS.Read` → `fs.read`). */
  requestedTool: z.string().optional(),
  target: z.string().optional(),
  args: z.record(z.string(), z.unknown()),
  result: z.record(z.string(), z.unknown()),
  durationMs: z.number(),
  permission: z
    .object({
      decision: z.enum(["allow", "ask", "deny"]),
      source: z.string(),
      answer: z.enum(["once", "always", "reject"]).optional(),
    })
    .optional(),
  limits: z.array(z.string()),
});
export type AuditRecord = z.infer<typeof AuditRecordSchema>;

export interface AuditLogOptions {
  /** The JSONL file; rotated copies sit beside it as `<file>.1` (newest) … `<file>.<keep>`. */
  file: string;
  /** Rotate before a record would take the file past this size. Default 5 MiB. */
  maxBytes?: number;
  /** Rotated files kept. Default 5. */
  keep?: number;
  logger?: Logger;
}

/**
 * Appends one JSON line per tool call, rotating by size so the log never grows without bound.
 * Appends are queued, so records from concurrent calls never interleave.
 */
export class AuditLog {
  readonly file: string;
  private readonly maxBytes: number;
  private readonly keep: number;
  private readonly logger: Logger;
  private size: number | undefined;
  private tail: Promise<void> = Promise.resolve();

  constructor(options: AuditLogOptions) {
    this.file = options.file;
    this.maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
    this.keep = Math.max(0, options.keep ?? 5);
    this.logger = options.logger ?? createLogger("toolhost:audit");
  }

  /** Resolves once the record is on disk; a failure is logged, never thrown at the tool call. */
  append(record: AuditRecord): Promise<void> {
    const line = JSON.stringify(record) + "\n";
    this.tail = this.tail.then(() =>
      this.write(line).catch((error: unknown) => {
        this.logger.error("audit record not written", { file: this.file, error: error instanceof Error ? error.message : String(error) });
      }),
    );
    return this.tail;
  }

  private async write(line: string): Promise<void> {
    if (this.size === undefined) {
      await fs.promises.mkdir(dirname(this.file), { recursive: true });
      this.size = await fs.promises.stat(this.file).then((s) => s.size, () => 0);
    }
    const bytes = Buffer.byteLength(line, "utf8");
    if (this.size > 0 && this.size + bytes > this.maxBytes) await this.rotate();
    await fs.promises.appendFile(this.file, line, { encoding: "utf8", mode: 0o600 });
    this.size += bytes;
  }

  private async rotate(): Promise<void> {
    const ignoreMissing = (error: unknown) => {
      if (!(error instanceof Error && "code" in error && error.code === "ENOENT")) throw error;
    };
    if (this.keep === 0) {
      await fs.promises.rm(this.file, { force: true });
    } else {
      await fs.promises.rm(`${this.file}.${this.keep}`, { force: true });
      for (let i = this.keep - 1; i >= 1; i--) await fs.promises.rename(`${this.file}.${i}`, `${this.file}.${i + 1}`).catch(ignoreMissing);
      await fs.promises.rename(this.file, `${this.file}.1`).catch(ignoreMissing);
    }
    this.size = 0;
  }
}
