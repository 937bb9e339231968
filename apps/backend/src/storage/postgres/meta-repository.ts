import type { MetaRepository } from "../meta-repository.ts";
import type { PostgresConnection } from "./connection.ts";

export class PostgresMetaRepository implements MetaRepository {
  constructor(private readonly pg: PostgresConnection) {}

  async get(key: string): Promise<string | undefined> {
    const [row] = await this.pg.current().unsafe<{ value: string }[]>("SELECT value FROM meta WHERE key = $1", [key]);
    return row?.value;
  }

  async set(key: string, value: string): Promise<void> {
    await this.pg.current().unsafe("INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [key, value]);
  }
}
