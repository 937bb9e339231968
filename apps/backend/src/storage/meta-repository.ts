import type { Database, Statement } from "bun:sqlite";

/** Small facts about the installation itself (e.g. whether the example content was loaded). */
export interface MetaRepository {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
}

export class SqliteMetaRepository implements MetaRepository {
  private readonly select: Statement<{ value: string }, [string]>;
  private readonly upsert: Statement<unknown, [string, string]>;

  constructor(db: Database) {
    this.select = db.query("SELECT value FROM meta WHERE key = ?");
    this.upsert = db.query("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
  }

  async get(key: string): Promise<string | undefined> {
    return this.select.get(key)?.value;
  }

  async set(key: string, value: string): Promise<void> {
    this.upsert.run(key, value);
  }
}
