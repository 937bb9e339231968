import { num } from "../storage/row-values.ts";
import { Table } from "../storage/table.ts";

/** The user's server-wide settings (e.g. the tool permissions), one JSON value per key. */
export type SettingsRepository = Pick<SettingsTableRepository, keyof SettingsTableRepository>;

export class SettingsTableRepository extends Table<{ settings: { key: string; data: string; updated_at: number | string } }> {
  /** The setting's JSON value (checked by its owner against its schema) and when it was last set. */
  async get(key: string): Promise<{ value: unknown; updatedAt: number } | undefined> {
    const row = await this.db.selectFrom("settings").select(["data", "updated_at"]).where("key", "=", key).executeTakeFirst();
    return row ? { value: JSON.parse(row.data), updatedAt: num(row.updated_at) } : undefined;
  }

  /** Stores `value` under `key`, replacing what was there; returns the time it was stored. */
  async set(key: string, value: unknown): Promise<number> {
    const now = Date.now();
    await this.upsertRows("settings", ["key"], [{ key, data: JSON.stringify(value), updated_at: now }]);
    return now;
  }
}
