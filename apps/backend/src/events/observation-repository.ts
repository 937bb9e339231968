import type { Observation } from "@weft/types";
import { Table } from "../storage/table.ts";
import { ID_LIST_CHUNK } from "./run-repository.ts";

/** An observation with its place in the run's list (the order nodes started in). */
export interface OrderedObservation {
  ord: number;
  observation: Observation;
}

export interface ObservationRepository {
  listByRun(runId: string): Promise<Observation[]>;
  /** How many node invocations each of these runs executed (not taken from the cache): one query for many runs. */
  countExecuted(runIds: readonly string[]): Promise<Map<string, number>>;
  /** Inserts or replaces observations by (runId, invocationId). */
  upsert(items: OrderedObservation[]): Promise<void>;
  /** Replaces every observation of the run with these, in this order. */
  replaceForRun(runId: string, observations: Observation[]): Promise<void>;
  /**
   * `replaceForRun` for several runs in two statements (one delete, one insert); a run named twice gets its last list.
   * Inside a transaction it joins it: a failure leaves the caller's transaction to roll back.
   */
  replaceForRuns(finals: ReadonlyArray<{ runId: string; observations: Observation[] }>): Promise<void>;
}

interface ObservationsTable {
  run_id: string;
  invocation_id: string;
  ord: number;
  data: string;
}

export class ObservationTable extends Table<{ observations: ObservationsTable }> implements ObservationRepository {
  async listByRun(runId: string): Promise<Observation[]> {
    const rows = await this.hot.rows("listByRun", (slot) => this.db.selectFrom("observations").select("data").where("run_id", "=", slot(0)).orderBy("ord"), [runId]);
    return rows.map((r) => JSON.parse(r.data) as Observation);
  }

  async countExecuted(runIds: readonly string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>(runIds.map((id) => [id, 0]));
    for (let i = 0; i < runIds.length; i += ID_LIST_CHUNK) {
      const rows = await this.db
        .selectFrom("observations")
        .select(["run_id", "data"])
        .where("run_id", "in", runIds.slice(i, i + ID_LIST_CHUNK))
        .execute();
      // `cached` sits in the JSON document (both engines): read here, as listByRun's callers did.
      for (const row of rows) if ((JSON.parse(row.data) as Observation).cached !== true) counts.set(row.run_id, (counts.get(row.run_id) ?? 0) + 1);
    }
    return counts;
  }

  /** One statement per MAX_INSERT_ROWS (the run writer flushes hundreds at once); the last copy of an invocation wins. */
  async upsert(items: OrderedObservation[]): Promise<void> {
    const latest = new Map<string, ObservationsTable>();
    for (const { ord, observation } of items) {
      const row = { run_id: observation.runId, invocation_id: observation.invocationId, ord, data: this.redact(observation) };
      // One INSERT cannot touch a row twice (PostgreSQL refuses it).
      latest.delete(`${row.run_id}\u0000${row.invocation_id}`);
      latest.set(`${row.run_id}\u0000${row.invocation_id}`, row);
    }
    await this.inChunks([...latest.values()], (chunk) => this.upsertRows("observations", ["run_id", "invocation_id"], chunk));
  }

  async replaceForRun(runId: string, observations: Observation[]): Promise<void> {
    await this.replaceForRuns([{ runId, observations }]);
  }

  async replaceForRuns(finals: ReadonlyArray<{ runId: string; observations: Observation[] }>): Promise<void> {
    const last = new Map(finals.map((f) => [f.runId, f.observations]));
    if (last.size === 0) return;
    const runIds = [...last.keys()];
    const all = async () => {
      for (let i = 0; i < runIds.length; i += ID_LIST_CHUNK)
        await this.db
          .deleteFrom("observations")
          .where("run_id", "in", runIds.slice(i, i + ID_LIST_CHUNK))
          .execute();
      await this.upsert([...last].flatMap(([runId, observations]) => observations.map((observation, ord) => ({ ord, observation: { ...observation, runId } }))));
    };
    // Within a caller's transaction (the run writer's flush) it joins it, as the rest of that write does: no savepoint.
    await (this.engine.inTransaction() ? all() : this.engine.transaction(all));
  }
}
