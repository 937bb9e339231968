import type { Database, SQLQueryBindings, Statement } from "bun:sqlite";
import type { z } from "zod";

/** A user document (workflow, agent profile, scene) as stored: the document plus bookkeeping. */
export interface StoredDocument<T> {
  document: T;
  createdAt: number;
  updatedAt: number;
}

export type CreateResult<T> = { kind: "created"; record: StoredDocument<T> } | { kind: "exists" };
export type UpdateResult<T> = { kind: "updated"; record: StoredDocument<T> } | { kind: "conflict"; current: StoredDocument<T> } | { kind: "not-found" };

/** A stored record a list left out because it no longer reads (see StoredRecordInvalidError). */
export interface SkippedRecord {
  id: string;
  code: "STORED_RECORD_INVALID";
  message: string;
}

/** What a list could read, and the records it left out: one broken record never breaks a list. */
export interface Listing<T> {
  items: T[];
  skipped: SkippedRecord[];
}

/** The operations every revisioned document repository offers (optimistic concurrency on `revision`). */
export interface DocumentRepository<T extends { id: string; revision: number }> {
  list(): Promise<Listing<StoredDocument<T>>>;
  get(id: string): Promise<StoredDocument<T> | undefined>;
  /** Stores a new document at revision 1; `exists` when the id is taken (nothing is written). */
  create(document: T): Promise<CreateResult<T>>;
  /** Writes revision `baseRevision + 1` only if the stored revision is still `baseRevision`. */
  update(document: T, baseRevision: number): Promise<UpdateResult<T>>;
  /**
   * Deletes the document; with `expectedRevision`, only while the stored revision is still that one
   * (one statement, so a writer that got in first makes it return false, as for a missing id).
   */
  delete(id: string, expectedRevision?: number): Promise<boolean>;
  ids(): Promise<string[]>;
  /** The stored revision, or null when not stored (inside `Storage.transaction`, what the transaction sees). */
  revision(id: string): Promise<number | null>;
  /**
   * Stores the document at exactly `revision`, inserting or replacing it, inside `Storage.transaction`
   * (the caller has compared the stored revision first, e.g. the Builder's apply).
   */
  put(document: T, revision: number): Promise<void>;
}

/** A record read back from the database does not match its schema any more. */
export class StoredRecordInvalidError extends Error {
  readonly code = "STORED_RECORD_INVALID";
  constructor(
    table: string,
    readonly id: string,
    detail: string,
  ) {
    super(`The stored ${table} record "${id}" does not match the current schema (${detail}). Fix or delete it.`);
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

interface Row {
  id: string;
  data: string;
  created_at: number;
  updated_at: number;
}

/** Columns a document kind keeps beside `data`, computed from the document on every write (e.g. the workflow list's summary). */
export interface DerivedColumns<T> {
  names: readonly string[];
  values(document: T): Array<string | number | null>;
}

/**
 * Decodes a stored record's JSON text (a document, a Builder session…) against its schema; one that
 * no longer reads is a StoredRecordInvalidError naming the table and id.
 */
export function decodeStoredJson<T>(table: string, id: string, data: string, schema: z.ZodType<T>): T {
  let raw: unknown;
  try {
    raw = JSON.parse(data);
  } catch {
    throw new StoredRecordInvalidError(table, id, "not JSON");
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new StoredRecordInvalidError(table, id, parsed.error.issues[0]?.message ?? "invalid");
  return parsed.data;
}

/**
 * A SQLite table of JSON documents with `id`, `name`, `revision`: the one implementation behind the
 * workflow, agent profile and scene repositories. Documents are re-parsed on read so defaults
 * added to a schema later apply to old records.
 */
export class SqliteDocumentTable<T extends { id: string; name: string; revision: number }> implements DocumentRepository<T> {
  private readonly selectAll: Statement<Row, []>;
  private readonly selectOne: Statement<Row, [string]>;
  private readonly selectIds: Statement<{ id: string }, []>;
  private readonly insert: Statement<unknown, SQLQueryBindings[]>;
  private readonly updateIf: Statement<unknown, SQLQueryBindings[]>;
  private readonly selectRevision: Statement<{ revision: number }, [string]>;
  private readonly upsert: Statement<unknown, SQLQueryBindings[]>;
  private readonly remove: Statement<unknown, [string]>;
  private readonly removeIf: Statement<unknown, [string, number]>;

  constructor(
    db: Database,
    private readonly table: string,
    private readonly schema: z.ZodType<T>,
    private readonly derived: DerivedColumns<T> = { names: [], values: () => [] },
  ) {
    const extra = derived.names.map((name) => `, ${name}`).join("");
    const extraParams = derived.names.map(() => ", ?").join("");
    const extraSet = derived.names.map((name) => `, ${name} = excluded.${name}`).join("");
    this.selectAll = db.query(`SELECT id, data, created_at, updated_at FROM ${table} ORDER BY name COLLATE NOCASE, id`);
    this.selectOne = db.query(`SELECT id, data, created_at, updated_at FROM ${table} WHERE id = ?`);
    this.selectIds = db.query(`SELECT id FROM ${table} ORDER BY id`);
    this.insert = db.query(`INSERT INTO ${table} (id, name, revision, data, created_at, updated_at${extra}) VALUES (?, ?, ?, ?, ?, ?${extraParams}) ON CONFLICT (id) DO NOTHING`);
    this.updateIf = db.query(`UPDATE ${table} SET name = ?, revision = ?, data = ?, updated_at = ?${derived.names.map((name) => `, ${name} = ?`).join("")} WHERE id = ? AND revision = ?`);
    this.selectRevision = db.query(`SELECT revision FROM ${table} WHERE id = ?`);
    this.upsert = db.query(
      `INSERT INTO ${table} (id, name, revision, data, created_at, updated_at${extra}) VALUES (?, ?, ?, ?, ?, ?${extraParams}) ON CONFLICT (id) DO UPDATE SET name = excluded.name, revision = excluded.revision, data = excluded.data, updated_at = excluded.updated_at${extraSet}`,
    );
    this.remove = db.query(`DELETE FROM ${table} WHERE id = ?`);
    this.removeIf = db.query(`DELETE FROM ${table} WHERE id = ? AND revision = ?`);
  }

  private decode(row: Row): StoredDocument<T> {
    return { document: decodeStoredJson(this.table, row.id, row.data, this.schema), createdAt: row.created_at, updatedAt: row.updated_at };
  }

  async list(): Promise<Listing<StoredDocument<T>>> {
    return listReadable(this.selectAll.all(), (row) => this.decode(row));
  }

  async ids(): Promise<string[]> {
    return this.selectIds.all().map((r) => r.id);
  }

  async get(id: string): Promise<StoredDocument<T> | undefined> {
    const row = this.selectOne.get(id);
    return row ? this.decode(row) : undefined;
  }

  async create(document: T): Promise<CreateResult<T>> {
    const now = Date.now();
    const stored = { ...document, revision: 1 };
    const result = this.insert.run(stored.id, stored.name, 1, JSON.stringify(stored), now, now, ...this.derived.values(stored));
    if (result.changes === 0) return { kind: "exists" };
    return { kind: "created", record: { document: stored, createdAt: now, updatedAt: now } };
  }

  async update(document: T, baseRevision: number): Promise<UpdateResult<T>> {
    const now = Date.now();
    const stored = { ...document, revision: baseRevision + 1 };
    const result = this.updateIf.run(stored.name, stored.revision, JSON.stringify(stored), now, ...this.derived.values(stored), stored.id, baseRevision);
    if (result.changes === 1) {
      const row = this.selectOne.get(stored.id);
      return { kind: "updated", record: { document: stored, createdAt: row?.created_at ?? now, updatedAt: now } };
    }
    const current = await this.get(document.id);
    return current ? { kind: "conflict", current } : { kind: "not-found" };
  }

  async delete(id: string, expectedRevision?: number): Promise<boolean> {
    return this.deleteSync(id, expectedRevision);
  }

  async revision(id: string): Promise<number | null> {
    return this.revisionSync(id);
  }

  async put(document: T, revision: number): Promise<void> {
    this.putSync(document, revision);
  }

  protected revisionSync(id: string): number | null {
    return this.selectRevision.get(id)?.revision ?? null;
  }

  protected putSync(document: T, revision: number): void {
    const now = Date.now();
    const stored = { ...document, revision };
    this.upsert.run(stored.id, stored.name, revision, JSON.stringify(stored), now, now, ...this.derived.values(stored));
  }

  protected deleteSync(id: string, expectedRevision?: number): boolean {
    return (expectedRevision === undefined ? this.remove.run(id) : this.removeIf.run(id, expectedRevision)).changes > 0;
  }
}
