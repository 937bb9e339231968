import type { SettingsRepository, StoredSetting } from "../settings-repository.ts";
import type { PostgresConnection } from "./connection.ts";
import { num } from "../row-values.ts";

export class PostgresSettingsRepository implements SettingsRepository {
  constructor(private readonly pg: PostgresConnection) {}

  async get(key: string): Promise<StoredSetting | undefined> {
    const [row] = await this.pg.current().unsafe<{ data: string; updated_at: string | number }[]>("SELECT data, updated_at FROM settings WHERE key = $1", [key]);
    return row ? { value: JSON.parse(row.data), updatedAt: num(row.updated_at) } : undefined;
  }

  async set(key: string, value: unknown): Promise<number> {
    const now = Date.now();
    await this.pg
      .current()
      .unsafe("INSERT INTO settings (key, data, updated_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at", [
        key,
        JSON.stringify(value),
        now,
      ]);
    return now;
  }
}
