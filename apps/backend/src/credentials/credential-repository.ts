import { z } from "zod";
import { CREDENTIAL_KINDS, CREDENTIAL_ROLES, type CredentialKind, type CredentialRole } from "@weft/types";
import { byteOrder } from "../storage/document-table.ts";
import { num, present, type NullsFor, type RowOf } from "../storage/row-values.ts";
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

/** The `credentials` table as both engines answer it (`RowOf`): hosts and roles as JSON arrays. */
type Row = RowOf<Omit<StoredCredential, "hosts" | "roles">, "createdAt" | "updatedAt"> & { hosts: string; roles: string };

const KindColumn = z.enum(CREDENTIAL_KINDS).catch("bearer");
const HostsColumn = z.array(z.string());
/** A role this Weft does not know (a newer one's) is dropped: it only ever narrows who may use the credential. */
const RolesColumn = z.array(z.string()).transform((roles) => roles.filter((r): r is CredentialRole => (CREDENTIAL_ROLES as readonly string[]).includes(r)));

/** A JSON column read back; one that cannot be read allows nothing (refused, never widened). */
function column<T>(schema: z.ZodType<T[]>, text: string): T[] {
  try {
    return schema.parse(JSON.parse(text));
  } catch {
    return [];
  }
}

function decode({ header, username, ...row }: Row): StoredCredential {
  return {
    ...row,
    ...present({ header, username }),
    kind: KindColumn.parse(row.kind),
    hosts: column(HostsColumn, row.hosts),
    roles: column(RolesColumn, row.roles),
    createdAt: num(row.createdAt),
    updatedAt: num(row.updatedAt),
  };
}

/** The credentials (core-migrations.ts' table), listed by name byte-wise on both engines (`byteOrder`). */
export class CredentialTable extends Table<{ credentials: Row }> {
  protected override readonly db = this.camelCase();

  async list(): Promise<StoredCredential[]> {
    const rows = await this.db.selectFrom("credentials").selectAll().orderBy(byteOrder(this.engine.sql.engine, "name")).execute();
    return rows.map(decode);
  }

  async get(name: string): Promise<StoredCredential | undefined> {
    const row = await this.db.selectFrom("credentials").selectAll().where("name", "=", name).executeTakeFirst();
    return row ? decode(row) : undefined;
  }

  /** Inserts or replaces the credential of that name. */
  async save(c: StoredCredential): Promise<void> {
    // Every nullable column named, so a replaced credential keeps no old value.
    const nulls: NullsFor<StoredCredential> = { header: null, username: null };
    const row = { ...nulls, ...c, hosts: JSON.stringify(c.hosts), roles: JSON.stringify(c.roles) };
    await this.upsertRows("credentials", ["name"], [row], ["createdAt"]);
  }

  async delete(name: string): Promise<boolean> {
    return (await this.db.deleteFrom("credentials").where("name", "=", name).executeTakeFirst()).numDeletedRows > 0n;
  }
}
