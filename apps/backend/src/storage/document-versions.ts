import { createHash } from "node:crypto";
import { sql, type Kysely } from "kysely";
import { stableJson, type DocumentVersion, type VersionAuthor } from "@weft/types";
import { ddl, type Int64Column } from "./ddl.ts";
import type { Migration } from "./migrations.ts";
import { num } from "./row-values.ts";
import { Table, type TableEngine } from "./table.ts";

/**
 * Every save of a revisioned document keeps an immutable version. Stored compactly: a version row is small
 * (document, number, hash, who, when, message) and names its content by SHA-256; the content itself is kept once
 * in `document_contents`, however many versions (or documents) have it.
 */
export const VERSION_MIGRATIONS: readonly Migration[] = [
  {
    id: "versions-001 document versions and their contents",
    async up(db, engine) {
      const { time, run, withoutRowid } = ddl(db, engine);
      await run(
        `CREATE TABLE document_contents (hash text PRIMARY KEY, data text NOT NULL)${withoutRowid}`,
        `CREATE TABLE document_versions (kind text NOT NULL, document_id text NOT NULL, number integer NOT NULL, hash text NOT NULL, saved_at ${time} NOT NULL, saved_by text, saved_by_name text, message text, PRIMARY KEY (kind, document_id, number))${withoutRowid}`,
        `CREATE INDEX document_versions_by_hash ON document_versions (hash)`,
      );
    },
  },
  {
    // A core table's column: which version of its workflow a run ran (null: a draft no save has, or a run from before).
    id: "versions-002 runs name their workflow version",
    async up(db, engine) {
      await ddl(db, engine).run(`ALTER TABLE runs ADD COLUMN workflow_version integer`);
    },
  },
  {
    // Once, here: before this step a save or a version read checked every time whether its document had a version yet.
    id: "versions-003 documents stored before version history get their content as version 1",
    async up(db) {
      const versions = db as Kysely<VersionTables>;
      const documents = db as Kysely<Record<VersionedKind, { id: string; data: string; updated_at: Int64Column }>>;
      for (const kind of VERSIONED_KINDS) {
        const versioned = new Set((await versions.selectFrom("document_versions").select("document_id").where("kind", "=", kind).execute()).map((r) => r.document_id));
        // Ids first: most databases have versions for all their documents, whose texts are not read.
        for (const { id } of await documents.selectFrom(kind).select("id").execute()) {
          if (versioned.has(id)) continue;
          const row = await documents.selectFrom(kind).select(["data", "updated_at"]).where("id", "=", id).executeTakeFirstOrThrow();
          const stored = storedObject(row.data);
          // A document that no longer reads is left as it is: its next save starts its history.
          if (stored === undefined) continue;
          const content = versionContent({ ...stored, revision: 0 });
          const version = { kind, document_id: id, number: 1, hash: contentHash(content) };
          await storeVersion(versions, version, content, { message: "as stored before version history" }, num(row.updated_at));
        }
      }
    },
  },
];

/** The tables of revisioned documents (`DocumentTable`s): a version's `kind` is its document's table. */
const VERSIONED_KINDS = ["workflows", "agent_profiles", "scenes"] as const;
type VersionedKind = (typeof VERSIONED_KINDS)[number];

/** A stored document's JSON text as an object; undefined when it is not one. */
function storedObject(data: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(data);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export interface VersionTables {
  document_contents: { hash: string; data: string };
  document_versions: {
    kind: string;
    document_id: string;
    number: number;
    hash: string;
    saved_at: Int64Column;
    saved_by: string | null;
    saved_by_name: string | null;
    message: string | null;
  };
}

/** What a save says about itself: who made it and why (both optional; a save no user made has no author). */
export interface SaveNote {
  by?: VersionAuthor;
  message?: string;
}

/** A document's content as versions keep it: the document without its `revision` (a counter every save moves). */
export function versionContent<T extends { revision: number }>(document: T): Omit<T, "revision"> {
  const { revision: _revision, ...content } = document;
  return content;
}

/** The content's hash: keys sorted, so equal content hashes equal whatever order its keys came in. */
export function contentHash(content: unknown): string {
  return createHash("sha256").update(stableJson(content)).digest("hex");
}

const VERSION_COLUMNS = ["number", "hash", "saved_at", "saved_by", "saved_by_name", "message"] as const;

function decodeVersion(row: { number: number; hash: string; saved_at: number | string; saved_by: string | null; saved_by_name: string | null; message: string | null }): DocumentVersion {
  return {
    number: Number(row.number),
    hash: row.hash,
    savedAt: num(row.saved_at),
    savedBy: row.saved_by === null ? null : { id: row.saved_by, name: row.saved_by_name ?? row.saved_by },
    ...(row.message !== null ? { message: row.message } : {}),
  };
}

/** One document kind's versions (`kind`: its table's name), on both engines. */
export class DocumentVersions extends Table<VersionTables, TableEngine> {
  constructor(
    engine: TableEngine,
    readonly kind: string,
  ) {
    super(engine);
  }

  /**
   * Records `content` as the document's next version, unless it equals the latest one (then nothing is stored and
   * the latest is answered). Call inside the save's transaction, so a save and its version are stored together.
   */
  async record(id: string, content: unknown, note: SaveNote = {}, now = Date.now()): Promise<DocumentVersion> {
    const hash = contentHash(content);
    const latest = await this.latest(id);
    if (latest?.hash === hash) return latest;
    return await storeVersion(this.db, { kind: this.kind, document_id: id, number: (latest?.number ?? 0) + 1, hash }, content, note, now);
  }

  async latest(id: string): Promise<DocumentVersion | undefined> {
    const row = await this.db.selectFrom("document_versions").select(VERSION_COLUMNS).where("kind", "=", this.kind).where("document_id", "=", id).orderBy("number", "desc").limit(1).executeTakeFirst();
    return row ? decodeVersion(row) : undefined;
  }

  /** Newest first, at most `limit`, numbered below `before` when given. */
  async list(id: string, limit: number, before?: number): Promise<DocumentVersion[]> {
    const rows = await this.db
      .selectFrom("document_versions")
      .select(VERSION_COLUMNS)
      .where("kind", "=", this.kind)
      .where("document_id", "=", id)
      .$if(before !== undefined, (q) => q.where("number", "<", before ?? 0))
      .orderBy("number", "desc")
      .limit(limit)
      .execute();
    return rows.map(decodeVersion);
  }

  /** Version `number` with its content (as JSON text was parsed; the caller checks it against its schema). */
  async get(id: string, number: number): Promise<{ version: DocumentVersion; content: unknown } | undefined> {
    const row = await this.db
      .selectFrom("document_versions as v")
      .innerJoin("document_contents as c", "c.hash", "v.hash")
      .select(["v.number", "v.hash", "v.saved_at", "v.saved_by", "v.saved_by_name", "v.message", "c.data"])
      .where("v.kind", "=", this.kind)
      .where("v.document_id", "=", id)
      .where("v.number", "=", number)
      .executeTakeFirst();
    return row ? { version: decodeVersion(row), content: JSON.parse(row.data) as unknown } : undefined;
  }

  /** The newest version whose content is exactly `content`, if any (e.g. which version a run ran). */
  async numberOf(id: string, content: unknown): Promise<number | undefined> {
    const row = await this.db
      .selectFrom("document_versions")
      .select("number")
      .where("kind", "=", this.kind)
      .where("document_id", "=", id)
      .where("hash", "=", contentHash(content))
      .orderBy("number", "desc")
      .limit(1)
      .executeTakeFirst();
    return row ? Number(row.number) : undefined;
  }

  /**
   * The version of the document's stored `revision` (the newest: every save records one, or keeps the latest when
   * its content is the same), while that revision is still the stored one. One statement, so a save in between
   * answers none: no content is hashed, which for a big document costs more than the read (e.g. at a run's start).
   */
  async ofRevision(id: string, revision: number): Promise<number | undefined> {
    const { rows } = await sql<{ number: number }>`SELECT number FROM document_versions WHERE kind = ${this.kind} AND document_id = ${id}
      AND EXISTS (SELECT 1 FROM ${sql.table(this.kind)} WHERE id = ${id} AND revision = ${revision}) ORDER BY number DESC LIMIT 1`.execute(this.db);
    return rows[0] === undefined ? undefined : Number(rows[0].number);
  }

  /** Removes the document's versions (it was deleted), and the contents no version names any more. */
  async deleteAll(id: string): Promise<void> {
    const hashes = (await this.db.selectFrom("document_versions").select("hash").distinct().where("kind", "=", this.kind).where("document_id", "=", id).execute()).map((r) => r.hash);
    await this.db.deleteFrom("document_versions").where("kind", "=", this.kind).where("document_id", "=", id).execute();
    await dropUnusedContents(this.db, hashes);
  }

  /** Retention of this kind's versions (`pruneVersions`); answers how many went. */
  async prune(keep: number, pinned: (id: string, number: number) => boolean): Promise<number> {
    return await pruneVersions(this.db, keep, (kind, id, number) => kind === this.kind && pinned(id, number), this.kind);
  }
}

/**
 * Retention: of each document's versions (of `kind`, or of every kind), keeps the newest `keep` (always at least the
 * latest) and those `pinned` answers true for (e.g. a version a run ran); removes the rest and the contents no version
 * names any more. Answers how many versions went. Runs on the caller's connection or transaction (`db`).
 */
export async function pruneVersions(db: Kysely<VersionTables>, keep: number, pinned: (kind: string, id: string, number: number) => boolean, kind?: string): Promise<number> {
  const ranked = db
    .selectFrom("document_versions")
    .select(["kind", "document_id", "number", "hash", sql<number>`row_number() over (partition by kind, document_id order by number desc)`.as("newest")])
    .$if(kind !== undefined, (q) => q.where("kind", "=", kind ?? ""))
    .as("ranked");
  const old = await db.selectFrom(ranked).select(["kind", "document_id", "number", "hash"]).where("newest", ">", Math.max(1, keep)).execute();
  const gone = old.filter((v) => !pinned(v.kind, v.document_id, Number(v.number)));
  for (const v of gone) await db.deleteFrom("document_versions").where("kind", "=", v.kind).where("document_id", "=", v.document_id).where("number", "=", v.number).execute();
  await dropUnusedContents(db, [...new Set(gone.map((v) => v.hash))]);
  return gone.length;
}

/** Stores `content` (once, by its hash) and names it as this version of its document. */
async function storeVersion(
  db: Kysely<VersionTables>,
  at: Pick<VersionTables["document_versions"], "kind" | "document_id" | "number" | "hash">,
  content: unknown,
  note: SaveNote,
  now: number,
): Promise<DocumentVersion> {
  await db
    .insertInto("document_contents")
    .values({ hash: at.hash, data: JSON.stringify(content) })
    .onConflict((oc) => oc.column("hash").doNothing())
    .execute();
  const version = { ...at, saved_at: now, saved_by: note.by?.id ?? null, saved_by_name: note.by?.name ?? null, message: note.message || null };
  await db.insertInto("document_versions").values(version).execute();
  return decodeVersion(version);
}

async function dropUnusedContents(db: Kysely<VersionTables>, hashes: string[]): Promise<void> {
  for (const hash of hashes) {
    await db
      .deleteFrom("document_contents")
      .where("hash", "=", hash)
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom("document_versions").select("hash").where("hash", "=", hash))))
      .execute();
  }
}
