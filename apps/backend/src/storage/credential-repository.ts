import type { Database, Statement } from "bun:sqlite";
import { CREDENTIAL_KINDS, type CredentialKind } from "@weft/types";

/** A named credential as stored; its secret only ever encrypted (see secrets/secret-box.ts). */
export interface StoredCredential {
  name: string;
  kind: CredentialKind;
  header?: string;
  username?: string;
  description: string;
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
  secret_encrypted: string;
  created_at: number;
  updated_at: number;
}

function decode(row: Row): StoredCredential {
  const kind = (CREDENTIAL_KINDS as readonly string[]).includes(row.kind) ? (row.kind as CredentialKind) : "bearer";
  return {
    name: row.name,
    kind,
    ...(row.header !== null ? { header: row.header } : {}),
    ...(row.username !== null ? { username: row.username } : {}),
    description: row.description,
    secretEncrypted: row.secret_encrypted,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export class SqliteCredentialRepository implements CredentialRepository {
  private readonly all: Statement<Row, []>;
  private readonly one: Statement<Row, [string]>;
  private readonly upsert: Statement<unknown, [string, string, string | null, string | null, string, string, number, number]>;
  private readonly remove: Statement<unknown, [string]>;

  constructor(db: Database) {
    this.all = db.query("SELECT * FROM credentials ORDER BY name");
    this.one = db.query("SELECT * FROM credentials WHERE name = ?");
    this.upsert = db.query(
      `INSERT INTO credentials (name, kind, header, username, description, secret_encrypted, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, header = excluded.header, username = excluded.username, description = excluded.description,
         secret_encrypted = excluded.secret_encrypted, updated_at = excluded.updated_at`,
    );
    this.remove = db.query("DELETE FROM credentials WHERE name = ?");
  }

  async list(): Promise<StoredCredential[]> {
    return this.all.all().map(decode);
  }

  async get(name: string): Promise<StoredCredential | undefined> {
    const row = this.one.get(name);
    return row ? decode(row) : undefined;
  }

  async save(c: StoredCredential): Promise<void> {
    this.upsert.run(c.name, c.kind, c.header ?? null, c.username ?? null, c.description, c.secretEncrypted, c.createdAt, c.updatedAt);
  }

  async delete(name: string): Promise<boolean> {
    return this.remove.run(name).changes > 0;
  }
}
