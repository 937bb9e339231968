import { decodeLlmProfile, llmProfileUpsertSql, llmProfileValues, type HealthStatus, type LlmProfileRepository, type LlmProfileRow, type StoredLlmProfile } from "../llm-profile-repository.ts";
import type { PostgresConnection } from "./connection.ts";

const ORDER = `is_default DESC, lower(name) COLLATE "C", id COLLATE "C"`;

export class PostgresLlmProfileRepository implements LlmProfileRepository {
  constructor(private readonly pg: PostgresConnection) {}

  async list(): Promise<StoredLlmProfile[]> {
    return (await this.pg.current().unsafe<LlmProfileRow[]>(`SELECT * FROM llm_profiles ORDER BY ${ORDER}`)).map(decodeLlmProfile);
  }

  async get(id: string): Promise<StoredLlmProfile | undefined> {
    const [row] = await this.pg.current().unsafe<LlmProfileRow[]>("SELECT * FROM llm_profiles WHERE id = $1", [id]);
    return row ? decodeLlmProfile(row) : undefined;
  }

  async getDefault(): Promise<StoredLlmProfile | undefined> {
    const [row] = await this.pg.current().unsafe<LlmProfileRow[]>(`SELECT * FROM llm_profiles WHERE is_default ORDER BY ${ORDER} LIMIT 1`);
    return row ? decodeLlmProfile(row) : undefined;
  }

  async save(p: StoredLlmProfile): Promise<void> {
    await this.pg.transaction(async () => {
      const sql = this.pg.current();
      if (p.isDefault) await sql.unsafe("UPDATE llm_profiles SET is_default = FALSE WHERE id <> $1 AND is_default", [p.id]);
      await sql.unsafe(
        llmProfileUpsertSql((n) => `$${n}`),
        llmProfileValues(p),
      );
    });
  }

  async delete(id: string): Promise<boolean> {
    return (await this.pg.current().unsafe("DELETE FROM llm_profiles WHERE id = $1", [id])).count > 0;
  }

  async setHealth(id: string, status: HealthStatus, testedAt: number): Promise<void> {
    await this.pg.current().unsafe("UPDATE llm_profiles SET health_status = $1, last_tested_at = $2 WHERE id = $3", [status, testedAt, id]);
  }
}
