import type { Kysely } from "kysely";
import { PreparedQueries } from "../storage/prepared-query.ts";
import { createQueryDb } from "../storage/query-db.ts";
import { MAX_INSERT_ROWS } from "./event-repository.ts";
import type { SqlHandle, Transact } from "../storage/sql-handle.ts";
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

interface ObservationsTable {
  run_id: string;
  invocation_id: string;
  ord: number;
  data: string;
}

export class ObservationTable implements ObservationRepository {
  private readonly db: Kysely<{ observations: ObservationsTable }>;
  /** The run page's read (`bench:server`), built once. */
  private readonly hot: PreparedQueries;

  constructor(
    handle: SqlHandle,
    private readonly redactor: SecretRedactor,
    private readonly transaction: Transact,
  ) {
    this.db = createQueryDb(handle);
    this.hot = new PreparedQueries(handle);
  }

  async listByRun(runId: string): Promise<Observation[]> {
    const rows = await this.hot.rows("listByRun", (slot) => this.db.selectFrom("observations").select("data").where("run_id", "=", slot(0)).orderBy("ord"), [runId]);
    return rows.map((r) => JSON.parse(r.data) as Observation);
  }

  /** One statement per MAX_INSERT_ROWS (the run writer flushes hundreds at once); the last copy of an invocation wins. */
  async upsert(items: OrderedObservation[]): Promise<void> {
    const latest = new Map<string, ObservationsTable>();
    for (const { ord, observation } of items) {
      const row = { run_id: observation.runId, invocation_id: observation.invocationId, ord, data: this.redactor.json(JSON.stringify(observation)) };
      // One INSERT cannot touch a row twice (PostgreSQL refuses it).
      latest.delete(`${row.run_id}\u0000${row.invocation_id}`);
      latest.set(`${row.run_id}\u0000${row.invocation_id}`, row);
    }
    const rows = [...latest.values()];
    const write = async () => {
      for (let i = 0; i < rows.length; i += MAX_INSERT_ROWS) {
        await this.db
          .insertInto("observations")
          .values(rows.slice(i, i + MAX_INSERT_ROWS))
          .onConflict((oc) => oc.columns(["run_id", "invocation_id"]).doUpdateSet((eb) => ({ ord: eb.ref("excluded.ord"), data: eb.ref("excluded.data") })))
          .execute();
      }
    };
    if (rows.length <= MAX_INSERT_ROWS) await write();
    else await this.transaction(write);
  }

  async replaceForRun(runId: string, observations: Observation[]): Promise<void> {
    await this.transaction(async () => {
      await this.db.deleteFrom("observations").where("run_id", "=", runId).execute();
      await this.upsert(observations.map((observation, ord) => ({ ord, observation: { ...observation, runId } })));
    });
  }
}
