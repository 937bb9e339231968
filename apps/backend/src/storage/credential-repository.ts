import type { Statement } from "bun:sqlite";
import { z } from "zod";
import { CREDENTIAL_KINDS, CREDENTIAL_ROLES, type CredentialKind, type CredentialRole } from "@weft/types";
import type { PostgresMigration } from "./postgres/migrations.ts";
import type { PostgresHandle, SqlHandle, SqliteHandle } from "./sql-handle.ts";
import { migrateSqliteModule, type SqliteModuleMigration } from "./sqlite-module-migrations.ts";

/** A named credential as stored; its secret only ever encrypted (see secrets/secret-box.ts). */
export interface StoredCredential {
  name: string;
  kind: CredentialKind;
  header?: string;
  username?: string;
  description: string;
  /** The URL patterns it may be sent to (normalised); empty for one stored before binding, which is refused until an owner binds it. */
  hosts: string[];
  /** The roles whose runs may use it. */
  roles: CredentialRole[];
  secretEncrypted: string;
  createdAt: number;
  updatedAt: number;
}

export interface CredentialRepository {
  list(): Promise<StoredCredential[]>;
  get(name: string): Promise<StoredCredential | undefined>;
  /** Inserts or replaces the credential of that name. */
  save(credential: StoredCredential): Promise<void>;
  delete(name: string): Promise<boolean>;
}

interface Row {
  name: string;
  kind: string;
  header: string | null;
  username: string | null;
  description: string;
  /** JSON arrays. */
  hosts: string;
  roles: string;
  secret_encrypted: string;
  /** PostgreSQL returns BIGINT as a string. */
  created_at: number | string;
  updated_at: number | string;
}

const HostsColumn = z.array(z.string());
/** A role this Weft does not know (a newer one's) is dropped: it only ever narrows who may use the credential. */
const RolesColumn = z.array(z.string()).transform((roles) => roles.filter((r): r is CredentialRole => (CREDENTIAL_ROLES as readonly string[]).includes(r)));

/** A JSON column read back; a row that cannot be read is treated as allowing nothing (refused, never widened). */
function column<T>(schema: z.ZodType<T>, text: string, fallback: T): T {
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : fallback;
  } catch {
    return fallback;
  }
}

function decode(row: Row): StoredCredential {
  const kind = (CREDENTIAL_KINDS as readonly string[]).includes(row.kind) ? (row.kind as CredentialKind) : "bearer";
  return {
    name: row.name,
    kind,
    ...(row.header !== null ? { header: row.header } : {}),
    ...(row.username !== null ? { username: row.username } : {}),
    description: row.description,
    hosts: column(HostsColumn, row.hosts, []),
    roles: column(RolesColumn, row.roles, []),
    secretEncrypted: row.secret_encrypted,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** The credentials in SQLite, on the storage's connection: each statement passes its gate (see SqliteHandle.gate). */
export class SqliteCredentialRepository implements CredentialRepository {
  private readonly all: Statement<Row, []>;
  private readonly one: Statement<Row, [string]>;
  private readonly upsert: Statement<unknown, [string, string, string | null, string | null, string, string, string, string, number, number]>;
  private readonly remove: Statement<unknown, [string]>;

  constructor(private readonly handle: SqliteHandle) {
    const { db } = handle;
    migrateSqliteModule(db, "credentials", CREDENTIALS_SQLITE_MIGRATIONS);
    this.all = db.query("SELECT * FROM credentials ORDER BY name");
    this.one = db.query("SELECT * FROM credentials WHERE name = ?");
    this.upsert = db.query(
      `INSERT INTO credentials (name, kind, header, username, description, hosts, roles, secret_encrypted, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, header = excluded.header, username = excluded.username, description = excluded.description,
         hosts = excluded.hosts, roles = excluded.roles, secret_encrypted = excluded.secret_encrypted, updated_at = excluded.updated_at`,
    );
    this.remove = db.query("DELETE FROM credentials WHERE name = ?");
  }

  async list(): Promise<StoredCredential[]> {
    return (await this.handle.gate(() => this.all.all())).map(decode);
  }

  async get(name: string): Promise<StoredCredential | undefined> {
    const row = await this.handle.gate(() => this.one.get(name));
    return row ? decode(row) : undefined;
  }

  async save(c: StoredCredential): Promise<void> {
    await this.handle.gate(() =>
      this.upsert.run(c.name, c.kind, c.header ?? null, c.username ?? null, c.description, JSON.stringify(c.hosts), JSON.stringify(c.roles), c.secretEncrypted, c.createdAt, c.updatedAt),
    );
  }

  async delete(name: string): Promise<boolean> {
    return (await this.handle.gate(() => this.remove.run(name))).changes > 0;
  }
}

/**
 * The credentials in PostgreSQL, every statement on `current()` (inside Storage.transaction, its
 * connection). Names are ordered byte-wise (COLLATE "C"), as SQLite orders them.
 */
export class PostgresCredentialRepository implements CredentialRepository {
  constructor(private readonly handle: PostgresHandle) {}

  async list(): Promise<StoredCredential[]> {
    const rows = (await this.handle.current()`SELECT * FROM credentials ORDER BY name COLLATE "C"`) as Row[];
    return rows.map(decode);
  }

  async get(name: string): Promise<StoredCredential | undefined> {
    const [row] = (await this.handle.current()`SELECT * FROM credentials WHERE name = ${name}`) as Row[];
    return row ? decode(row) : undefined;
  }

  async save(c: StoredCredential): Promise<void> {
    await this.handle.current()`INSERT INTO credentials (name, kind, header, username, description, hosts, roles, secret_encrypted, created_at, updated_at)
      VALUES (${c.name}, ${c.kind}, ${c.header ?? null}, ${c.username ?? null}, ${c.description}, ${JSON.stringify(c.hosts)}, ${JSON.stringify(c.roles)}, ${c.secretEncrypted}, ${c.createdAt}, ${c.updatedAt})
      ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, header = excluded.header, username = excluded.username, description = excluded.description,
        hosts = excluded.hosts, roles = excluded.roles, secret_encrypted = excluded.secret_encrypted, updated_at = excluded.updated_at`;
  }

  async delete(name: string): Promise<boolean> {
    const result = await this.handle.current()`DELETE FROM credentials WHERE name = ${name}`;
    return result.count > 0;
  }
}

/** The credential repository on the storage's engine and connection. */
export function createCredentialRepository(handle: SqlHandle): CredentialRepository {
  switch (handle.engine) {
    case "sqlite":
      return new SqliteCredentialRepository(handle);
    case "postgres":
      return new PostgresCredentialRepository(handle);
    default: {
      const never: never = handle;
      return never;
    }
  }
}

/**
 * Where each credential may go and who may use it (issue 31), on a credentials table of either engine:
 * rows stored before have no hosts (refused until an owner binds them) and owners only as roles.
 */
const BINDING_COLUMNS = `
  ALTER TABLE credentials ADD COLUMN hosts TEXT NOT NULL DEFAULT '[]';
  ALTER TABLE credentials ADD COLUMN roles TEXT NOT NULL DEFAULT '["owner"]';
`;

/** SQLite's steps after the table (migration 6 of migrations.ts), in the module's own version row. */
const CREDENTIALS_SQLITE_MIGRATIONS: readonly SqliteModuleMigration[] = [{ version: 1, sql: BINDING_COLUMNS }];

/** The credentials table in PostgreSQL, append-only (registered in postgres/migrations.ts); SQLite's is migration 6 of migrations.ts. */
export const CREDENTIALS_POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    id: "credentials-001 credentials for http.request",
    sql: `
    CREATE TABLE credentials (
      name TEXT PRIMARY KEY,
      kind TEXT NOT NULL,
      header TEXT,
      username TEXT,
      description TEXT NOT NULL DEFAULT '',
      secret_encrypted TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    );
  `,
  },
  { id: "credentials-002 hosts and roles a credential is bound to", sql: BINDING_COLUMNS },
];
