import type { Database } from "bun:sqlite";
import { closeSync, openSync, readSync } from "node:fs";
import { endianness } from "node:os";
import type { SqliteGate } from "./sqlite-gate.ts";
import { keepsAlive } from "../background-thread.ts";

export type CheckpointRequest = { kind: "checkpoint"; id: number; file: string } | { kind: "close"; id: number };

export type CheckpointReply = { id: number; ok: true } | { id: number; ok: false; message: string };

/** When to checkpoint: once the WAL holds this many pages not yet copied (SQLite's own default), or a while after the last write. */
export interface CheckpointPolicy {
  pages: number;
  /** A checkpoint at most this often when fewer pages wait: what was written last is copied soon after the writing stops. */
  everyMs: number;
}

export const DEFAULT_CHECKPOINT_POLICY: CheckpointPolicy = { pages: 1000, everyMs: 500 };

/**
 * Copies a SQLite database's WAL back into its file on a thread of its own (`wal-checkpoint-worker.ts`).
 * SQLite does this itself by default, inside the COMMIT that takes the WAL past 1,000 pages: the copy and
 * its fsyncs then ran on the server's event loop, ~10 ms every ~170 ms in a busy scene and, when the disk
 * was slow, 190 ms at once (`bench:scene` at 50 agents: the event loop stood still 230 ms). Attached to a
 * connection, it switches SQLite's own checkpoints off and checkpoints when `policy.pages` wait, or
 * `policy.everyMs` after a smaller write. The connection's storage calls wait meanwhile
 * (`SqliteGate.exclusive`; the event loop goes on), so the WAL is copied whole and starts over instead of
 * growing. The thread is started at the first checkpoint (again after it ended idle); if a checkpoint
 * fails, or the thread ends owing one, SQLite checkpoints by itself again. The database must have Weft's
 * `meta` table (the thread notes its checkpoints there).
 */
export class WalCheckpointer {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  private lastAt = 0;
  /** Pages in the WAL right after the last checkpoint: the thread's own write. */
  private ownPages = 0;
  private inFlight: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private failed = false;
  private closeIndex: (() => void) | undefined;

  constructor(private readonly file: string) {}

  /** Takes the checkpoints of `db`, whose storage calls go through `gate`, over from SQLite. */
  attach(db: Database, gate: SqliteGate, policy: CheckpointPolicy = DEFAULT_CHECKPOINT_POLICY): void {
    db.exec("PRAGMA wal_autocheckpoint = 0");
    // Not at the first small write: a storage opened briefly (a command, a test) never starts the thread.
    this.lastAt = Date.now();
    const index = walIndex(this.file);
    this.closeIndex = index.close;
    let checkedAt = 0;
    const due = () => {
      if (this.inFlight || this.failed) return;
      const now = Date.now();
      // Called after every storage call: the WAL's count is read at most every few milliseconds.
      if (now - checkedAt < CHECK_EVERY_MS) return;
      checkedAt = now;
      const pages = index.pagesWaiting();
      if (pages <= this.ownPages) return;
      if (pages < policy.pages) {
        const wait = this.lastAt + policy.everyMs - now;
        if (wait > 0) {
          this.timer ??= setTimeout(() => {
            this.timer = undefined;
            checkedAt = 0;
            due();
          }, wait);
          this.timer.unref();
          return;
        }
      }
      // Storage calls wait meanwhile: no write comes in while the WAL is copied, so the next one starts it over.
      this.inFlight = gate
        .exclusive(async () => {
          await this.checkpoint();
          // The thread's own write after the copy (it starts the WAL over): nothing to copy for that alone.
          this.ownPages = index.pagesWaiting();
        })
        .then(
          () => undefined,
          () => {
            this.failed = true;
            db.exec("PRAGMA wal_autocheckpoint = 1000");
          },
        )
        .finally(() => {
          this.lastAt = Date.now();
          this.inFlight = undefined;
        });
    };
    gate.onSettled(due);
  }

  checkpoint(): Promise<void> {
    return this.ask({ kind: "checkpoint", id: this.nextId++, file: this.file });
  }

  /** Closes the thread's connection, then the thread. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.failed = true;
    await this.inFlight;
    this.closeIndex?.();
    const worker = this.worker;
    if (!worker) return;
    try {
      await this.ask({ kind: "close", id: this.nextId++ });
    } finally {
      this.worker = undefined;
      worker.terminate();
      this.failAll(new Error("the checkpoint thread was closed"));
    }
  }

  private ask(request: CheckpointRequest): Promise<void> {
    const worker = this.start();
    // Referenced while it owes an answer: an unreferenced thread's reply, awaited by a process with nothing else to
    // wait for (a command, a test, a bench without a server), kept the event loop spinning at full CPU meanwhile.
    if (this.pending.size === 0) keepsAlive(worker, true);
    return new Promise((resolve, reject) => {
      this.pending.set(request.id, { resolve, reject });
      worker.postMessage(request);
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    // Not kept alive by the thread (the server may exit while it idles); a small heap: it runs one statement.
    const worker = new Worker(new URL("./wal-checkpoint-worker.ts", import.meta.url).href, { ref: false, smol: true });
    worker.onmessage = (event: MessageEvent<CheckpointReply>) => {
      const reply = event.data;
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) keepsAlive(worker, false);
      if (reply.ok) waiting.resolve();
      else waiting.reject(new Error(reply.message));
    };
    worker.onerror = (event: ErrorEvent) => {
      this.worker = undefined;
      worker.terminate();
      this.failAll(new Error(`the checkpoint thread failed: ${event.message}`));
    };
    // Ended without an error (killed, exited): what it was asked is never answered.
    worker.addEventListener("close", () => {
      if (this.worker === worker) this.worker = undefined;
      this.failAll(new Error("the checkpoint thread ended"));
    });
    this.worker = worker;
    return worker;
  }

  private failAll(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}

const CHECK_EVERY_MS = 5;

/**
 * How many pages the WAL holds that are not in the database file yet, read from the wal-index header in the
 * `-shm` file (https://www.sqlite.org/walformat.html: `mxFrame` at byte 16, `nBackfill` at byte 96, in the
 * machine's byte order): what SQLite's own checkpoint trigger counts, for a 4-byte read instead of a statement.
 * 0 while there is no `-shm` file yet.
 */
function walIndex(file: string): { pagesWaiting(): number; close(): void } {
  const buffer = Buffer.alloc(100);
  const read = endianness() === "LE" ? (at: number) => buffer.readUInt32LE(at) : (at: number) => buffer.readUInt32BE(at);
  let fd: number | undefined;
  return {
    pagesWaiting: () => {
      try {
        fd ??= openSync(`${file}-shm`, "r");
        if (readSync(fd, buffer, 0, 100, 0) < 100) return 0;
      } catch {
        return 0;
      }
      return Math.max(0, read(16) - read(96));
    },
    close: () => {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}
