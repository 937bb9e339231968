import type { Database, Statement } from "bun:sqlite";

/** One stored setting: its JSON value (checked by its owner against its schema) and when it was last set. */
export interface StoredSetting {
  value: unknown;
  updatedAt: number;
}

/** The user's server-wide settings (e.g. the tool permissions), one JSON value per key. */
export interface SettingsRepository {
  get(key: string): Promise<StoredSetting | undefined>;
  /** Stores `value` under `key`, replacing what was there; returns the time it was stored. */
  set(key: string, value: unknown): Promise<number>;
}

export class SqliteSettingsRepository implements SettingsRepository {
  private readonly select: Statement<{ data: string; updated_at: number }, [string]>;
  private readonly upsert: Statement<unknown, [string, string, number]>;

  constructor(db: Database) {
    this.select = db.query("SELECT data, updated_at FROM settings WHERE key = ?");
    this.upsert = db.query("INSERT INTO settings (key, data, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at");
  }

  async get(key: string): Promise<StoredSetting | undefined> {
    const row = this.select.get(key);
    return row ? { value: JSON.parse(row.data), updatedAt: row.updated_at } : undefined;
  }

  async set(key: string, value: unknown): Promise<number> {
    const now = Date.now();
    this.upsert.run(key, JSON.stringify(value), now);
    return now;
  }
}
