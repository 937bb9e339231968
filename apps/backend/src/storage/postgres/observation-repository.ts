import type { Observation, SecretRedactor } from "@weft/types";
import type { ObservationRepository, OrderedObservation } from "../observation-repository.ts";
import type { PostgresConnection } from "./connection.ts";

export class PostgresObservationRepository implements ObservationRepository {
  constructor(
    private readonly pg: PostgresConnection,
    private readonly redactor: SecretRedactor,
  ) {}

  async listByRun(runId: string): Promise<Observation[]> {
    const rows = await this.pg.current().unsafe<{ data: string }[]>("SELECT data FROM observations WHERE run_id = $1 ORDER BY ord", [runId]);
    return rows.map((r) => JSON.parse(r.data) as Observation);
  }

  /** One statement for the whole list (the run writer flushes hundreds at once); the last copy of an invocation wins. */
  async upsert(items: OrderedObservation[]): Promise<void> {
    if (items.length === 0) return;
    const latest = new Map<string, { run_id: string; invocation_id: string; ord: number; data: string }>();
    for (const { ord, observation } of items) {
      latest.set(JSON.stringify([observation.runId, observation.invocationId]), {
        run_id: observation.runId,
        invocation_id: observation.invocationId,
        ord,
        data: this.redactor.json(JSON.stringify(observation)),
      });
    }
    const sql = this.pg.current();
    await sql`INSERT INTO observations ${sql([...latest.values()])} ON CONFLICT (run_id, invocation_id) DO UPDATE SET ord = excluded.ord, data = excluded.data`;
  }

  async replaceForRun(runId: string, observations: Observation[]): Promise<void> {
    await this.pg.transaction(async () => {
      await this.pg.current().unsafe("DELETE FROM observations WHERE run_id = $1", [runId]);
      await this.upsert(observations.map((observation, ord) => ({ ord, observation: { ...observation, runId } })));
    });
  }
}
