import { messageOf } from "@weft/types";
import { CheckedTexts } from "./checked-texts.ts";
import { sql, type RawBuilder } from "kysely";
import type { z } from "zod";
import type { SlotOf } from "./prepared-query.ts";
import { num } from "./row-values.ts";
import type { SqlHandle } from "./sql-handle.ts";
import type { StorageEngine } from "./storage.ts";
import { Table } from "./table.ts";
import { DocumentVersions, versionContent, type SaveNote } from "./document-versions.ts";

/** A user document (workflow, agent profile, scene) as stored: the document plus bookkeeping. */
export interface StoredDocument<T> {
  document: T;
  createdAt: number;
  updatedAt: number;
}

export type CreateResult<T> = { kind: "created"; record: StoredDocument<T> } | { kind: "exists" };
export type UpdateResult<T> = { kind: "updated"; record: StoredDocument<T> } | { kind: "conflict"; current: StoredDocument<T> } | { kind: "not-found" };

/** What a list could read, and the records it left out because they no longer read (StoredRecordInvalidError): one broken record never breaks a list. */
export interface Listing<T> {
  items: T[];
  skipped: { id: string; code: "STORED_RECORD_INVALID"; message: string }[];
}

/** The operations every revisioned document repository offers (one implementation, for both engines). */
export type DocumentRepository<T extends { id: string; name: string; revision: number }> = Pick<DocumentTable<T>, keyof DocumentTable<T>>;

/** A record read back from the database does not match its schema any more: reported, never silently dropped or changed. */
export class StoredRecordInvalidError extends Error {
  readonly code = "STORED_RECORD_INVALID";
  constructor(
    what: string,
    readonly id: string,
    detail: string,
  ) {
    super(`The stored ${what} "${id}" ${detail}; it was left as it is. Fix or delete it.`);
  }
}

/** Decodes every row it can; a row that does not decode is left out and reported, not thrown. */
export function listReadable<R, T>(rows: R[], decode: (row: R) => T): Listing<T> {
  const listing: Listing<T> = { items: [], skipped: [] };
  for (const row of rows) {
    try {
      listing.items.push(decode(row));
    } catch (error) {
      if (!(error instanceof StoredRecordInvalidError)) throw error;
      listing.skipped.push({ id: error.id, code: error.code, message: error.message });
    }
  }
  return listing;
}

/** The columns every document table (`workflows`, `agent_profiles`, `scenes`) has; a kind may keep more beside them (`derived`). */
export interface DocumentColumns {
  id: string;
  name: string;
  revision: number;
  data: string;
  /** PostgreSQL answers BIGINT as text. */
  created_at: number | string;
  updated_at: number | string;
}

/** Lists' order on both engines: by name case-insensitively, then id (PostgreSQL byte-wise whatever the database's collation). */
export function nameOrder(engine: SqlHandle["engine"]): RawBuilder<unknown> {
  switch (engine) {
    case "sqlite":
      return sql`name COLLATE NOCASE, id`;
    case "postgres":
      return sql`lower(name) COLLATE "C", id COLLATE "C"`;
  }
}

/** Byte-wise order of a text column on both engines (PostgreSQL COLLATE "C", as SQLite compares by default). */
export function byteOrder(engine: SqlHandle["engine"], column: string): RawBuilder<unknown> {
  return engine === "postgres" ? sql`${sql.ref(column)} COLLATE "C"` : sql`${sql.ref(column)}`;
}

/**
 * A stored record's JSON text (a document, a Builder session, a scene's state…) checked against its schema; one that
 * no longer reads is a StoredRecordInvalidError naming it: `what` and `id`, e.g. `workflows record` "w1".
 */
export function decodeStoredJson<T>(what: string, id: string, data: string, schema: z.ZodType<T>): T {
  let raw: unknown;
  try {
    raw = JSON.parse(data);
  } catch (error) {
    throw new StoredRecordInvalidError(what, id, `is not valid JSON (${messageOf(error)})`);
  }
  return checkStored(what, id, raw, schema);
}

/** `raw` (read from a stored row) checked against its schema, as `decodeStoredJson` checks it. */
export function checkStored<T>(what: string, id: string, raw: unknown, schema: z.ZodType<T>): T {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new StoredRecordInvalidError(what, id, `does not fit its format at ${issue?.path.join(".") || "(root)"}: ${issue?.message}`);
}

/**
 * A table of JSON documents with `id`, `name`, `revision`: the one implementation behind the workflow,
 * agent profile and scene repositories, on both engines. Documents are re-parsed on read so defaults
 * added to a schema later apply to old records. An update is `UPDATE … WHERE revision = $base`: of two
 * writers updating from the same revision exactly one changes the row, the other reports the conflict.
 */
export class DocumentTable<T extends { id: string; name: string; revision: number }> extends Table<Record<string, DocumentColumns & Record<string, unknown>>> {
  /** The document's version history (`document-versions.ts`). */
  readonly versions: DocumentVersions;
  private readonly checked = new CheckedTexts();

  constructor(
    engine: StorageEngine,
    protected readonly table: string,
    private readonly schema: z.ZodType<T>,
    /** Columns a kind keeps beside `data`, computed from the document on every write (e.g. the workflow list's summary). */
    private readonly derived: (document: T) => Record<string, string | number | boolean | null> = () => ({}),
  ) {
    super(engine);
    this.versions = new DocumentVersions(engine, table);
  }

  private decode(row: Pick<DocumentColumns, "id" | "data" | "created_at" | "updated_at">): StoredDocument<T> {
    const document = this.checked.decode(row.id, row.data, (data) => decodeStoredJson(`${this.table} record`, row.id, data, this.schema));
    return { document, createdAt: num(row.created_at), updatedAt: num(row.updated_at) };
  }

  private row(document: T, now: number): DocumentColumns & Record<string, unknown> {
    return { id: document.id, name: document.name, revision: document.revision, data: JSON.stringify(document), created_at: now, updated_at: now, ...this.derived(document) };
  }

  async list(): Promise<Listing<StoredDocument<T>>> {
    const rows = await this.db.selectFrom(this.table).select(["id", "data", "created_at", "updated_at"]).orderBy(nameOrder(this.engine.sql.engine)).execute();
    return listReadable(rows, (row) => this.decode(row));
  }

  async ids(): Promise<string[]> {
    const rows = await this.db.selectFrom(this.table).select("id").orderBy(byteOrder(this.engine.sql.engine, "id")).execute();
    return rows.map((r) => r.id);
  }

  async get(id: string): Promise<StoredDocument<T> | undefined> {
    const byId = (slot: SlotOf) => this.db.selectFrom(this.table).select(["id", "data", "created_at", "updated_at"]).where("id", "=", slot(0));
    const [row] = await this.hot.rows("get", byId, [id]);
    return row ? this.decode(row) : undefined;
  }

  /** Stores a new document at revision 1 and its version 1; `exists` when the id is taken (nothing is written). */
  async create(document: T, note?: SaveNote): Promise<CreateResult<T>> {
    const now = Date.now();
    const stored = { ...document, revision: 1 };
    const inserted = await this.engine.transaction(async () => {
      if ((await this.upsertRows(this.table, ["id"], [this.row(stored, now)], "all")) === 0) return false;
      await this.versions.record(stored.id, versionContent(stored), note, now);
      return true;
    });
    if (!inserted) return { kind: "exists" };
    this.written?.(stored.id, true);
    return { kind: "created", record: { document: stored, createdAt: now, updatedAt: now } };
  }

  /** Writes revision `baseRevision + 1` only if the stored revision is still `baseRevision`, with its version (none when the content did not change). */
  async update(document: T, baseRevision: number, note?: SaveNote): Promise<UpdateResult<T>> {
    const now = Date.now();
    const stored = { ...document, revision: baseRevision + 1 };
    const { id: _id, created_at: _created, ...changes } = this.row(stored, now);
    const row = await this.engine.transaction(async () => {
      const updated = await this.db.updateTable(this.table).set(changes).where("id", "=", stored.id).where("revision", "=", baseRevision).returning("created_at").executeTakeFirst();
      if (updated) await this.versions.record(stored.id, versionContent(stored), note, now);
      return updated;
    });
    if (row) return { kind: "updated", record: { document: stored, createdAt: num(row.created_at), updatedAt: now } };
    const current = await this.get(document.id);
    return current ? { kind: "conflict", current } : { kind: "not-found" };
  }

  /**
   * Deletes the document and its versions; with `expectedRevision`, only while the stored revision is still that one
   * (one statement, so a writer that got in first makes it return false, as for a missing id).
   */
  async delete(id: string, expectedRevision?: number): Promise<boolean> {
    const result = await this.engine.transaction(async () => {
      const deleted = await this.db
        .deleteFrom(this.table)
        .where("id", "=", id)
        .$if(expectedRevision !== undefined, (q) => q.where("revision", "=", expectedRevision ?? 0))
        .executeTakeFirst();
      if (deleted.numDeletedRows > 0n) await this.versions.deleteAll(id);
      return deleted;
    });
    // A conditional delete that matched nothing may have left the row (at another revision) in place.
    if (result.numDeletedRows > 0n || expectedRevision === undefined) this.written?.(id, false);
    return result.numDeletedRows > 0n;
  }

  /** The stored revision, or null when not stored (inside `Storage.transaction`, what the transaction sees). */
  async revision(id: string): Promise<number | null> {
    return (await this.db.selectFrom(this.table).select("revision").where("id", "=", id).executeTakeFirst())?.revision ?? null;
  }

  /** Stores the document at exactly `revision`, inserting or replacing it, inside `Storage.transaction` (the caller compared the stored revision first, e.g. the Builder's apply), with its version. */
  async put(document: T, revision: number, note?: SaveNote): Promise<void> {
    const now = Date.now();
    await this.engine.transaction(async () => {
      await this.upsertRows(this.table, ["id"], [this.row({ ...document, revision }, now)], ["created_at"]);
      await this.versions.record(document.id, versionContent({ ...document, revision }), note, now);
    });
    this.written?.(document.id, true);
  }

  /** Told of every write of this process (the workflow repository keeps its PostgreSQL id cache with it). */
  protected written?(id: string, stored: boolean): void;
}
