import { Table } from "../storage/table.ts";

/** Small facts about the installation itself (e.g. whether the example content was loaded). */
export class MetaTable extends Table<{ meta: { key: string; value: string } }> {
  async get(key: string): Promise<string | undefined> {
    return (await this.db.selectFrom("meta").select("value").where("key", "=", key).executeTakeFirst())?.value;
  }

  async set(key: string, value: string): Promise<void> {
    await this.upsertRows("meta", ["key"], [{ key, value }]);
  }
}
