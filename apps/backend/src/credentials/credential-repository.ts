import { z } from "zod";
import { CREDENTIAL_KINDS, CREDENTIAL_ROLES, type CredentialKind, type CredentialRole } from "@weft/types";
import { byteOrder } from "../storage/document-table.ts";
import { present } from "../storage/row-values.ts";
import { Table } from "../storage/table.ts";

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
    ...present({ header: row.header, username: row.username }),
    description: row.description,
    hosts: column(HostsColumn, row.hosts, []),
    roles: column(RolesColumn, row.roles, []),
    secretEncrypted: row.secret_encrypted,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/**
 * The credentials, on the storage's connection (inside Storage.transaction, its transaction). Names
 * are ordered byte-wise (PostgreSQL COLLATE "C"), as SQLite orders them. The table: core-migrations.ts.
 */
export class CredentialTable extends Table<{ credentials: Row }> implements CredentialRepository {
  async list(): Promise<StoredCredential[]> {
    const rows = await this.db.selectFrom("credentials").selectAll().orderBy(byteOrder(this.engine.sql.engine, "name")).execute();
    return rows.map(decode);
  }

  async get(name: string): Promise<StoredCredential | undefined> {
    const row = await this.db.selectFrom("credentials").selectAll().where("name", "=", name).executeTakeFirst();
    return row ? decode(row) : undefined;
  }

  async save(c: StoredCredential): Promise<void> {
    const row: Row = {
      name: c.name,
      kind: c.kind,
      header: c.header ?? null,
      username: c.username ?? null,
      description: c.description,
      hosts: JSON.stringify(c.hosts),
      roles: JSON.stringify(c.roles),
      secret_encrypted: c.secretEncrypted,
      created_at: c.createdAt,
      updated_at: c.updatedAt,
    };
    await this.upsertRows("credentials", ["name"], [row], ["created_at"]);
  }

  async delete(name: string): Promise<boolean> {
    return (await this.db.deleteFrom("credentials").where("name", "=", name).executeTakeFirst()).numDeletedRows > 0n;
  }
}
