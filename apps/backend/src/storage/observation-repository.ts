import type { Database, Statement } from "bun:sqlite";
import type { Observation, SecretRedactor } from "@weft/types";

/** An observation with its place in the run's list (the order nodes started in). */
export interface OrderedObservation {
  ord: number;
  observation: Observation;
}

export interface ObservationRepository {
  listByRun(runId: string): Promise<Observation[]>;
  /** Inserts or replaces observations by (runId, invocationId). */
  upsert(items: OrderedObservation[]): Promise<void>;
  /** Replaces every observation of the run with these, in this order. */
  replaceForRun(runId: string, observations: Observation[]): Promise<void>;
}

export class SqliteObservationRepository implements ObservationRepository {
  private readonly select: Statement<{ data: string }, [string]>;
  private readonly upsertStmt: Statement<unknown, [string, string, number, string]>;
  private readonly deleteRun: Statement<unknown, [string]>;

  constructor(
    private readonly db: Database,
    private readonly redactor: SecretRedactor,
  ) {
    this.select = db.query("SELECT data FROM observations WHERE run_id = ? ORDER BY ord");
    this.upsertStmt = db.query(
      "INSERT INTO observations (run_id, invocation_id, ord, data) VALUES (?, ?, ?, ?) ON CONFLICT (run_id, invocation_id) DO UPDATE SET ord = excluded.ord, data = excluded.data",
    );
    this.deleteRun = db.query("DELETE FROM observations WHERE run_id = ?");
  }

  async listByRun(runId: string): Promise<Observation[]> {
    return this.select.all(runId).map((r) => JSON.parse(r.data) as Observation);
  }

  /** Synchronous form, for the batched writer's transaction. */
  upsertSync(items: OrderedObservation[]): void {
    for (const { ord, observation } of items) this.upsertStmt.run(observation.runId, observation.invocationId, ord, this.redactor.json(JSON.stringify(observation)));
  }

  async upsert(items: OrderedObservation[]): Promise<void> {
    this.upsertSync(items);
  }

  /** Synchronous form, for the batched writer's transaction (which makes it atomic). */
  replaceForRunSync(runId: string, observations: Observation[]): void {
    this.deleteRun.run(runId);
    this.upsertSync(observations.map((observation, ord) => ({ ord, observation: { ...observation, runId } })));
  }

  async replaceForRun(runId: string, observations: Observation[]): Promise<void> {
    this.db.transaction(() => this.replaceForRunSync(runId, observations))();
  }
}
