import type { Statement } from "bun:sqlite";
import type { SqlHandle, SqliteHandle, PostgresHandle } from "../storage/sql-handle.ts";
import { payloadId, type PayloadBlob, type PayloadLoader, type PayloadSink } from "./payload-refs.ts";

/** Ids remembered as stored; past this many the memory starts over (a repeated insert is ignored anyway). */
const KNOWN_LIMIT = 200_000;
/** Ids of texts up to this long are remembered by text (longer ones by their content id), up to this many characters in all (then the memory starts over). */
const ID_MEMO_MAX_TEXT = 4096;
const ID_MEMO_CHARS = 4_000_000;
/** The front of a stored id: when it was made, in milliseconds, base 36 (8 characters until 2059). The rest is the start of the content id. */
const STAMP_CHARS = 8;
/** SQLite's host-parameter limit is far above this; PostgreSQL gets the same batches. */
const LOAD_BATCH = 500;

/**
 * The texts that stored records reference (`payload-refs.ts`), once each while the store remembers
 * them (`idOf`), in the server's database. Texts are only added, never changed (same id, same text);
 * `flush` writes them in the caller's transaction, before the records that reference them (the journal's
 * batch), or in one of its own: a crash in between leaves an unreferenced text, never a reference without its text.
 */
export class PayloadStore implements PayloadSink {
  private pending: PayloadBlob[] = [];
  private readonly known = new Set<string>();
  private readonly ids = new Map<string, string>();
  private idChars = 0;
  private readonly engine: SqliteEngine | PostgresEngine;

  constructor(sql: SqlHandle) {
    switch (sql.engine) {
      case "sqlite":
        this.engine = new SqliteEngine(sql);
        break;
      case "postgres":
        this.engine = new PostgresEngine(sql);
        break;
      default: {
        const never: never = sql;
        throw new Error(`unknown storage engine ${JSON.stringify(never)}`);
      }
    }
  }

  put(json: string): string {
    const id = this.idOf(json);
    if (!this.known.has(id)) {
      if (this.known.size >= KNOWN_LIMIT) this.known.clear();
      this.known.add(id);
      this.pending.push({ id, json });
    }
    return id;
  }

  /**
   * The id of a text: when it was first put, then the start of its content id (`payloadId`), so ids sort in the order
   * they are made and each new text goes to the end of the payloads' id index. Content ids alone put each new text at
   * a random place of that index: ~2.3 of the ~11.6 pages a busy scene's agent step wrote. The same text gets the
   * same id while the store remembers it, by its text (an agent step puts the same prompt pieces, history messages and
   * runs of them again: a lookup instead of a hash) or, when long, by its content id. Put again after that, it is
   * stored again under a new id: some bytes twice, never a wrong reference.
   */
  private idOf(json: string): string {
    const content = json.length > ID_MEMO_MAX_TEXT ? payloadId(json) : undefined;
    // JSON never starts with "#": content ids and texts cannot meet as keys.
    const key = content === undefined ? json : `#${content}`;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = Date.now().toString(36).padStart(STAMP_CHARS, "0").slice(-STAMP_CHARS) + (content ?? payloadId(json)).slice(0, -STAMP_CHARS);
      if (this.idChars + key.length > ID_MEMO_CHARS) {
        this.ids.clear();
        this.idChars = 0;
      }
      this.ids.set(key, id);
      this.idChars += key.length;
    }
    return id;
  }

  /**
   * Writes the texts added since the last call and returns them; on failure they stay waiting for
   * the next call. Inside a transaction that later rolls back, give them back with `restore`.
   */
  async flush(): Promise<PayloadBlob[]> {
    if (this.pending.length === 0) return [];
    const blobs = this.pending;
    this.pending = [];
    try {
      await this.engine.write(blobs);
    } catch (error) {
      this.pending = [...blobs, ...this.pending];
      throw error;
    }
    return blobs;
  }

  /** Texts a flush wrote in a transaction that rolled back: written again with the next flush. */
  restore(blobs: readonly PayloadBlob[]): void {
    this.pending = [...blobs, ...this.pending];
  }

  readonly load: PayloadLoader = async (ids) => {
    const out = new Map<string, string>();
    for (let i = 0; i < ids.length; i += LOAD_BATCH) {
      for (const row of await this.engine.read(ids.slice(i, i + LOAD_BATCH))) out.set(row.id, row.json);
    }
    return out;
  };
}

class SqliteEngine {
  private readonly insert: Statement<unknown, [string, string]>;

  constructor(private readonly sql: SqliteHandle) {
    // Kept out of the numbered migrations: the table belongs to this module and only ever gains rows.
    // Rows in insertion order and the ids in an index of their own: ids stored before they were made in
    // order (`idOf`) are random, and keyed by them the table's pages would split at random places.
    sql.db.run("CREATE TABLE IF NOT EXISTS payloads (id TEXT NOT NULL UNIQUE, data TEXT NOT NULL)");
    this.insert = sql.db.query("INSERT OR IGNORE INTO payloads (id, data) VALUES (?, ?)");
  }

  async write(blobs: PayloadBlob[]): Promise<void> {
    const { db } = this.sql;
    await this.sql.gate(() => db.transaction(() => blobs.forEach((b) => this.insert.run(b.id, b.json))).immediate());
  }

  async read(ids: string[]): Promise<Array<{ id: string; json: string }>> {
    const { db } = this.sql;
    return this.sql.gate(() => db.query<{ id: string; json: string }, string[]>(`SELECT id, data AS json FROM payloads WHERE id IN (${ids.map(() => "?").join(",")})`).all(...ids));
  }
}

/** The payloads table in PostgreSQL, append-only (registered in storage/postgres/migrations.ts). */
export const PAYLOAD_POSTGRES_MIGRATIONS: ReadonlyArray<{ id: string; sql: string }> = [
  { id: "payloads-001 large values stored once", sql: "CREATE TABLE payloads (id TEXT PRIMARY KEY, data TEXT NOT NULL)" },
];

class PostgresEngine {
  constructor(private readonly handle: PostgresHandle) {}

  async write(blobs: PayloadBlob[]): Promise<void> {
    const rows = blobs.map((b) => ({ id: b.id, data: b.json }));
    const sql = this.handle.current();
    await sql`INSERT INTO payloads ${sql(rows, "id", "data")} ON CONFLICT (id) DO NOTHING`;
  }

  async read(ids: string[]): Promise<Array<{ id: string; json: string }>> {
    const sql = this.handle.current();
    return (await sql`SELECT id, data AS json FROM payloads WHERE id IN ${sql(ids)}`) as Array<{ id: string; json: string }>;
  }
}
