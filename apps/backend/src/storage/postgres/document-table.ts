import type { z } from "zod";
import { decodeStoredJson, listReadable, type CreateResult, type DocumentRepository, type Listing, type StoredDocument, type UpdateResult } from "../document-table.ts";
import type { PostgresConnection } from "./connection.ts";
import { num } from "../row-values.ts";

interface Row {
  id: string;
  data: string;
  created_at: string | number;
  updated_at: string | number;
}

/** Columns a document kind keeps beside `data` on PostgreSQL, computed from the document on every write. */
export interface PostgresDerivedColumns<T> {
  names: readonly string[];
  values(document: T): unknown[];
}

/**
 * A PostgreSQL table of JSON documents with `id`, `name`, `revision`: the workflow, agent profile and
 * scene repositories. An update is `UPDATE … WHERE revision = $base`: of two processes updating from
 * the same revision, the row lock lets exactly one change the row; the other then matches no row and
 * reports the conflict.
 */
export class PostgresDocumentTable<T extends { id: string; name: string; revision: number }> implements DocumentRepository<T> {
  private readonly columns: string;
  private readonly placeholders: string;
  private readonly assignments: string;
  private readonly upsertAssignments: string;

  constructor(
    protected readonly pg: PostgresConnection,
    protected readonly table: string,
    private readonly schema: z.ZodType<T>,
    private readonly derived: PostgresDerivedColumns<T> = { names: [], values: () => [] },
  ) {
    const names = ["id", "name", "revision", "data", "created_at", "updated_at", ...derived.names];
    this.columns = names.join(", ");
    this.placeholders = names.map((_, i) => `$${i + 1}`).join(", ");
    // For UPDATE: name, revision, data, updated_at and the derived columns from $1; id and base revision follow.
    const updated = ["name", "revision", "data", "updated_at", ...derived.names];
    this.assignments = updated.map((name, i) => `${name} = $${i + 1}`).join(", ");
    this.upsertAssignments = updated.map((name) => `${name} = excluded.${name}`).join(", ");
  }

  private decode(row: Row): StoredDocument<T> {
    return { document: decodeStoredJson(this.table, row.id, row.data, this.schema), createdAt: num(row.created_at), updatedAt: num(row.updated_at) };
  }

  /** The same order as SQLite's `name COLLATE NOCASE, id`, whatever the database's collation. */
  protected static readonly ORDER = `lower(name) COLLATE "C", id COLLATE "C"`;

  async list(): Promise<Listing<StoredDocument<T>>> {
    const rows = await this.pg.current().unsafe<Row[]>(`SELECT id, data, created_at, updated_at FROM ${this.table} ORDER BY ${PostgresDocumentTable.ORDER}`);
    return listReadable(rows, (row) => this.decode(row));
  }

  async ids(): Promise<string[]> {
    const rows = await this.pg.current().unsafe<{ id: string }[]>(`SELECT id FROM ${this.table} ORDER BY id COLLATE "C"`);
    return rows.map((r) => r.id);
  }

  async get(id: string): Promise<StoredDocument<T> | undefined> {
    const [row] = await this.pg.current().unsafe<Row[]>(`SELECT id, data, created_at, updated_at FROM ${this.table} WHERE id = $1`, [id]);
    return row ? this.decode(row) : undefined;
  }

  async create(document: T): Promise<CreateResult<T>> {
    const now = Date.now();
    const stored = { ...document, revision: 1 };
    const result = await this.pg
      .current()
      .unsafe(`INSERT INTO ${this.table} (${this.columns}) VALUES (${this.placeholders}) ON CONFLICT (id) DO NOTHING`, [
        stored.id,
        stored.name,
        1,
        JSON.stringify(stored),
        now,
        now,
        ...this.derived.values(stored),
      ]);
    if (result.count === 0) return { kind: "exists" };
    this.written(stored.id, true);
    return { kind: "created", record: { document: stored, createdAt: now, updatedAt: now } };
  }

  async update(document: T, baseRevision: number): Promise<UpdateResult<T>> {
    const now = Date.now();
    const stored = { ...document, revision: baseRevision + 1 };
    const values = [stored.name, stored.revision, JSON.stringify(stored), now, ...this.derived.values(stored)];
    const [row] = await this.pg
      .current()
      .unsafe<{ created_at: string | number }[]>(`UPDATE ${this.table} SET ${this.assignments} WHERE id = $${values.length + 1} AND revision = $${values.length + 2} RETURNING created_at`, [
        ...values,
        stored.id,
        baseRevision,
      ]);
    if (row) return { kind: "updated", record: { document: stored, createdAt: num(row.created_at), updatedAt: now } };
    const current = await this.get(document.id);
    return current ? { kind: "conflict", current } : { kind: "not-found" };
  }

  async delete(id: string, expectedRevision?: number): Promise<boolean> {
    const result =
      expectedRevision === undefined
        ? await this.pg.current().unsafe(`DELETE FROM ${this.table} WHERE id = $1`, [id])
        : await this.pg.current().unsafe(`DELETE FROM ${this.table} WHERE id = $1 AND revision = $2`, [id, expectedRevision]);
    // A conditional delete that matched nothing may have left the row (at another revision) in place.
    if (result.count > 0 || expectedRevision === undefined) this.written(id, false);
    return result.count > 0;
  }

  async revision(id: string): Promise<number | null> {
    const [row] = await this.pg.current().unsafe<{ revision: number }[]>(`SELECT revision FROM ${this.table} WHERE id = $1`, [id]);
    return row ? row.revision : null;
  }

  async put(document: T, revision: number): Promise<void> {
    const now = Date.now();
    const stored = { ...document, revision };
    await this.pg
      .current()
      .unsafe(`INSERT INTO ${this.table} (${this.columns}) VALUES (${this.placeholders}) ON CONFLICT (id) DO UPDATE SET ${this.upsertAssignments}`, [
        stored.id,
        stored.name,
        revision,
        JSON.stringify(stored),
        now,
        now,
        ...this.derived.values(stored),
      ]);
    this.written(stored.id, true);
  }

  /** Told of every write of this process (the workflow repository keeps its id cache with it). */
  protected written(id: string, stored: boolean): void {
    void id;
    void stored;
  }
}
