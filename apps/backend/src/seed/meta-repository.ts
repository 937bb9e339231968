import type { Kysely } from "kysely";
import { createQueryDb } from "../storage/query-db.ts";
import type { SqlHandle } from "../storage/sql-handle.ts";

/** Small facts about the installation itself (e.g. whether the example content was loaded). */
export interface MetaRepository {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
}

export class MetaTable implements MetaRepository {
  private readonly db: Kysely<{ meta: { key: string; value: string } }>;

  constructor(handle: SqlHandle) {
    this.db = createQueryDb(handle);
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.db.selectFrom("meta").select("value").where("key", "=", key).executeTakeFirst())?.value;
  }

  async set(key: string, value: string): Promise<void> {
    await this.db
      .insertInto("meta")
      .values({ key, value })
      .onConflict((oc) => oc.column("key").doUpdateSet({ value }))
      .execute();
  }
}
