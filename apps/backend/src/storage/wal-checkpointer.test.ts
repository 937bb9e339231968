import { describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { DATABASE_FILE, openSqliteStorage, requireSqlite, type Storage } from "../testing/storage.ts";
import { openDatabase } from "./database.ts";
import { SqliteGate } from "./sqlite-gate.ts";
import { WalCheckpointer } from "./wal-checkpointer.ts";
import { tempDir } from "../testing/test-server.ts";

/** ~`rounds` × 100 KB of events, each round its own transaction, as a busy journal writes them. */
async function writeEvents(storage: Storage, rounds: number, stream = "s"): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    await storage.transaction(async () => {
      await storage.events.append(Array.from({ length: 100 }, (_, k) => ({ streamId: `${stream}${round}`, seq: k, type: "x", json: JSON.stringify({ pad: "y".repeat(1000), k }) })));
    });
  }
}

const walBytes = (dir: string) => statSync(join(dir, `${DATABASE_FILE}-wal`)).size;

/** Generous: on a busy machine the low-priority thread gets the CPU last. */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

describe("WAL checkpoints on their own thread", () => {
  it("keep the WAL small while far more is written, copy it into the database file, and record when", async () => {
    const dir = tempDir();
    const storage = await openSqliteStorage(dir);
    const { db } = requireSqlite(storage.sql, "test");
    try {
      // SQLite's own checkpoints (inside COMMIT, on this thread) are off: every copy below is the thread's.
      expect(db.query<{ wal_autocheckpoint: number }, []>("PRAGMA wal_autocheckpoint").get()?.wal_autocheckpoint).toBe(0);
      await writeEvents(storage, 120);
      // ~12 MB written; without checkpoints the WAL would hold all of it.
      expect(walBytes(dir)).toBeLessThan(8 * 1024 * 1024);
      await until(() => statSync(join(dir, DATABASE_FILE)).size > 10 * 1024 * 1024, "the database file to hold what was written");
      expect(await storage.meta.get("wal_checkpointed_at")).toMatch(/^\d{4}-\d\d-\d\dT/);
      // The thread runs at a lower priority than the event loop (Linux: nice is per thread). Only our own Worker thread is
      // looked at: the runtime's helper threads (JavaScriptCore's HeapHelper GC threads) inherit its priority or not as
      // the runtime pleases, and they come and go.
      const niceness = readdirSync("/proc/self/task").map((tid) => {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
        return { name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), nice: Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]) };
      });
      expect(niceness.filter((t) => t.name === "Worker").map((t) => t.nice)).toContain(10);
      // What was written last is copied soon after the writing stops, though it is less than a checkpoint's worth.
      const lastWrite = new Date().toISOString();
      await storage.meta.set("last", "1");
      await until(async () => ((await storage.meta.get("wal_checkpointed_at")) ?? "") > lastWrite, "a checkpoint after the last write");
    } finally {
      await storage.close();
    }
    // Its connection closed first, the server's close was the last one: it checkpointed and removed the WAL.
    expect(existsSync(join(dir, `${DATABASE_FILE}-wal`))).toBe(false);
    const reopened = await openSqliteStorage(dir);
    try {
      expect((await reopened.events.listAfter("s119", -1, 1000)).length).toBe(100);
    } finally {
      await reopened.close();
    }
  });

  it("hold storage calls while a checkpoint runs, and leave the event loop free meanwhile", async () => {
    const db = openDatabase(join(tempDir(), DATABASE_FILE));
    db.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT NOT NULL)");
    const gate = new SqliteGate(db);
    try {
      let release!: () => void;
      const checkpointing = new Promise<void>((resolve) => (release = resolve));
      const order: string[] = [];
      const held = gate.exclusive(async () => {
        order.push("checkpoint started");
        await checkpointing;
        order.push("checkpoint ended");
      });
      const write = gate.run(() => db.run("INSERT INTO t (k, v) VALUES ('k', 'v')")).then(() => order.push("write"));
      const transaction = gate.transaction(async () => void db.run("INSERT INTO t (k, v) VALUES ('k2', 'v')")).then(() => order.push("transaction"));
      // A timer still fires while the checkpoint holds storage: the loop is not blocked.
      await Bun.sleep(20).then(() => order.push("timer"));
      release();
      await Promise.all([held, write, transaction]);
      expect(order.slice(0, 3)).toEqual(["checkpoint started", "timer", "checkpoint ended"]);
      expect(order.slice(3).sort()).toEqual(["transaction", "write"]);
      expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM t").get()?.n).toBe(2);
    } finally {
      db.close();
    }
  });

  /** A bare database with Weft's `meta` table (the thread notes its checkpoints there), its gate and checkpointer. */
  function bareDatabase() {
    const file = join(tempDir(), DATABASE_FILE);
    const db = openDatabase(file);
    db.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL)");
    const gate = new SqliteGate(db);
    const checkpointer = new WalCheckpointer(file);
    checkpointer.attach(db, gate, { pages: 100, everyMs: 10 });
    const insert = db.query("INSERT INTO t (k, v) VALUES (?, ?)");
    const write = async (from: number, to: number) => {
      for (let k = from; k < to; k++) await gate.transaction(async () => void insert.run(k, "z".repeat(4000)));
    };
    const autocheckpoint = () => db.query<{ wal_autocheckpoint: number }, []>("PRAGMA wal_autocheckpoint").get()?.wal_autocheckpoint;
    const close = async () => {
      await checkpointer.close();
      db.close();
    };
    return { file, db, checkpointer, write, autocheckpoint, close };
  }

  it("hand the checkpoints back to SQLite when the thread's checkpoint fails, so the WAL stays small all the same", async () => {
    const { file, db, write, autocheckpoint, close } = bareDatabase();
    try {
      await write(0, 200);
      expect(autocheckpoint()).toBe(0);
      // The thread's note after a checkpoint can no longer be written: its next checkpoint fails.
      db.exec("DROP TABLE meta");
      await write(200, 400);
      await until(() => autocheckpoint() === 1000, "SQLite's own checkpoints to be back");
      await write(400, 3000);
      // ~12 MB written; SQLite checkpointed by itself every 1,000 pages.
      expect(statSync(`${file}-wal`).size).toBeLessThan(8 * 1024 * 1024);
      expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM t").get()?.n).toBe(3000);
    } finally {
      await close();
    }
  });

  it("do not leave storage calls waiting for a thread that ended", async () => {
    const { file, db, checkpointer, write, close } = bareDatabase();
    try {
      await write(0, 200);
      // The thread runs (those writes may not have filled the WAL enough for a checkpoint on a busy machine).
      await checkpointer.checkpoint();
      // Killed (as a crash would end it): what it is asked now is never answered, and is refused instead.
      (checkpointer as unknown as { worker: Worker }).worker.terminate();
      await expect(checkpointer.checkpoint()).rejects.toThrow(/ended/);
      // The writes go on (a new thread, or SQLite's own checkpoints), and the WAL stays small.
      await write(200, 3000);
      expect(statSync(`${file}-wal`).size).toBeLessThan(8 * 1024 * 1024);
      expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM t").get()?.n).toBe(3000);
    } finally {
      await close();
    }
  });
});
