import type { Migration } from "../storage/migrations.ts";
import { rowsByIds, Table, type TableEngine } from "../storage/table.ts";
import { ddlStep } from "../storage/ddl.ts";
import { payloadId, type PayloadBlob, type PayloadLoader, type PayloadSink } from "./payload-refs.ts";

/** Ids of texts up to this long are remembered by text (longer ones by their content id), up to this many characters in all (then the memory starts over: cheaper than ageing one by one). */
const ID_MEMO_MAX_TEXT = 4096;
const ID_MEMO_CHARS = 4_000_000;
/** The front of a stored id: when it was made, in milliseconds, base 36 (8 characters until 2059). The rest is the start of the content id. */
const STAMP_CHARS = 8;

interface PayloadTables {
  payloads: { id: string; data: string };
}

/**
 * The payloads table. SQLite: rows in insertion order and the ids in an index of their own (ids stored before they
 * were made in order, see `put`, are random, and keyed by them the table's pages would split at random places).
 * IF NOT EXISTS: a SQLite file of e5dc891 got the table when its first PayloadStore opened, with no version row.
 */
export const PAYLOAD_MIGRATIONS: readonly Migration[] = [
  ddlStep("payloads-001 large values stored once", ({ pg }) => [`CREATE TABLE IF NOT EXISTS payloads (id text ${pg ? "PRIMARY KEY" : "NOT NULL UNIQUE"}, data text NOT NULL)`]),
];

/**
 * The texts that stored records reference (`payload-refs.ts`), once each while the store remembers them (`put`); only
 * added, never changed. Written before the records that reference them: a crash leaves an unreferenced text, never a
 * reference without its text.
 */
export class PayloadStore extends Table<PayloadTables, TableEngine> implements PayloadSink {
  private pending: PayloadBlob[] = [];
  private ids = new Map<string, string>();
  private idChars = 0;

  /**
   * The text's id, and the text queued for the next `flush` unless the store remembers it. An id is when the text was
   * first put, then the start of its content id: new ids go to the end of the id index (README.md). Texts are
   * remembered by text (a lookup instead of a hash), long ones by content id; put again after that, stored again.
   */
  put(json: string): string {
    const content = json.length > ID_MEMO_MAX_TEXT ? payloadId(json) : undefined;
    // JSON never starts with "#": content ids and texts cannot meet as keys.
    const key = content === undefined ? json : `#${content}`;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = Date.now().toString(36).padStart(STAMP_CHARS, "0").slice(-STAMP_CHARS) + (content ?? payloadId(json)).slice(0, -STAMP_CHARS);
      this.idChars += key.length;
      if (this.idChars > ID_MEMO_CHARS) {
        this.ids = new Map();
        this.idChars = key.length;
      }
      this.ids.set(key, id);
      this.pending.push({ id, json });
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
      await this.write(blobs);
    } catch (error) {
      this.restore(blobs);
      throw error;
    }
    return blobs;
  }

  /** Writes these texts now (an id stored before keeps its text), in the caller's transaction if any (several statements: one of their own). */
  async write(blobs: readonly PayloadBlob[]): Promise<void> {
    const rows = blobs.map((b) => ({ id: b.id, data: b.json }));
    await this.upsertRows("payloads", ["id"], rows, "all");
  }

  /** Texts a flush wrote in a transaction that rolled back: written again with the next flush. */
  restore(blobs: readonly PayloadBlob[]): void {
    this.pending = [...blobs, ...this.pending];
  }

  readonly load: PayloadLoader = async (ids) => {
    const rows = await rowsByIds(ids, (chunk) => this.db.selectFrom("payloads").select(["id", "data"]).where("id", "in", chunk).execute());
    return new Map(rows.map((row) => [row.id, row.data]));
  };
}
