import * as fs from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import { createLogger, type Logger, messageOf } from "@weft/types";

const PermissionTrailSchema = z.object({
  decision: z.enum(["allow", "ask", "deny"]),
  source: z.string(),
  answer: z.enum(["once", "always", "reject"]).optional(),
});

/** Who called what: in every record. */
const callFields = {
  ts: z.string(),
  /** Ties a call's `started` record to the one that ends it. */
  callId: z.string(),
  runId: z.string().optional(),
  agentId: z.string().optional(),
  /** The user who started the run the call belongs to, when a user did (see ToolCallContext.userId). */
  userId: z.string().optional(),
  tool: z.string(),
  /** The name the caller used, when it had to be repaired (`FS.Read` → `fs.read`). */
  requestedTool: z.string().optional(),
  target: z.string().optional(),
};

/** Written when a permitted call begins its work, so a crash during it still leaves a trace. */
export const AuditStartedSchema = z.object({
  status: z.literal("started"),
  ...callFields,
  args: z.record(z.string(), z.unknown()),
  permission: PermissionTrailSchema.optional(),
});

/** Every call ends with one: its result, or its refusal (refused calls have no `started` record). */
export const AuditCompletedSchema = z.object({
  status: z.literal("completed"),
  ...callFields,
  args: z.record(z.string(), z.unknown()),
  result: z.record(z.string(), z.unknown()),
  durationMs: z.number(),
  permission: PermissionTrailSchema.optional(),
  limits: z.array(z.string()),
});

/** Appended at the next start for a call whose `started` record was never followed by its end (the process died). */
export const AuditInterruptedSchema = z.object({
  status: z.literal("interrupted"),
  ...callFields,
  /** When the interrupted call started. */
  startedAt: z.string(),
});

export const AuditRecordSchema = z.discriminatedUnion("status", [AuditStartedSchema, AuditCompletedSchema, AuditInterruptedSchema]);
export type AuditRecord = z.infer<typeof AuditRecordSchema>;
export type AuditStarted = z.infer<typeof AuditStartedSchema>;
export type AuditCompleted = z.infer<typeof AuditCompletedSchema>;
export type AuditPermission = z.infer<typeof PermissionTrailSchema>;

function safeJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

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
 * Appends JSON lines for tool calls (`started` when a call begins its work, `completed` when it
 * ends), rotating by size so the log never grows without bound. Appends are queued, so records
 * from concurrent calls never interleave.
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
        this.logger.error("audit record not written", { file: this.file, error: messageOf(error) });
      }),
    );
    return this.tail;
  }

  /**
   * Appends an `interrupted` record for each call that started and never ended: the process
   * writing the log died during it. Call once, at start, before any call; resolves with those
   * calls' ids (never throws: a failure is logged).
   */
  recoverInterrupted(): Promise<string[]> {
    const done = this.tail
      .then(async () => {
        const open = await this.findUnfinished();
        const ts = new Date().toISOString();
        for (const started of open) {
          const { status: _status, args: _args, permission: _permission, ts: startedAt, ...call } = started;
          await this.write(JSON.stringify({ ...call, status: "interrupted", ts, startedAt } satisfies AuditRecord) + "\n");
        }
        return open.map((record) => record.callId);
      })
      .catch((error: unknown) => {
        this.logger.error("interrupted tool calls not recorded", { file: this.file, error: messageOf(error) });
        return [];
      });
    this.tail = done.then(() => undefined);
    return done;
  }

  /** `started` records without their end, in the current file and the newest rotated one (a call can span a rotation). */
  private async findUnfinished(): Promise<AuditStarted[]> {
    const open = new Map<string, AuditStarted>();
    for (const file of [`${this.file}.1`, this.file]) {
      const text = await fs.promises.readFile(file, "utf8").catch((error: unknown) => {
        if (error instanceof Error && "code" in error && error.code === "ENOENT") return "";
        throw error;
      });
      for (const line of text.split("\n")) {
        if (line.trim() === "") continue;
        const parsed = AuditRecordSchema.safeParse(safeJson(line));
        // Lines from older versions or cut off by the crash say nothing about open calls.
        if (!parsed.success) continue;
        if (parsed.data.status === "started") open.set(parsed.data.callId, parsed.data);
        else open.delete(parsed.data.callId);
      }
    }
    return [...open.values()];
  }

  private async write(line: string): Promise<void> {
    if (this.size === undefined) {
      // What tools were called with: the folder is its user's alone, as the file is.
      await fs.promises.mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
      this.size = await fs.promises.stat(this.file).then(
        (s) => s.size,
        () => 0,
      );
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
