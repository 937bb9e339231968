import type { Observation } from "@weft/types";
import { atomically, ID_LIST_CHUNK, rowsByIds, Table } from "../storage/table.ts";
import { powerOfTwoChunks, type SlotOf } from "../storage/prepared-query.ts";
import { EventTable } from "./event-repository.ts";
import { fillFromEvents, isObservationStub, observationsFromEvents } from "./observation-refs.ts";
import { hydratePayloads } from "./payload-refs.ts";
import { PayloadStore } from "./payload-store.ts";

/** An observation with its place in the run's list (the order nodes started in). */
export interface OrderedObservation {
  ord: number;
  observation: Observation;
}

/** What the observations' users call (one implementation, for both engines). */
export type ObservationRepository = Pick<ObservationTable, keyof ObservationTable>;

interface ObservationsTable {
  run_id: string;
  invocation_id: string;
  ord: number;
  data: string;
}

/** Events read per page when a run's observations are made from them. */
const EVENT_PAGE = 2000;

/**
 * Observations, on both engines, read back whole: their large values resolved (`payload-refs.ts`), and a running run's
 * (an agent's run's, never finalized) made from its node events (`observation-refs.ts`), as the run's events are read.
 */
export class ObservationTable extends Table<{ observations: ObservationsTable }> {
  private readonly payloads = new PayloadStore(this.engine);
  /** The run's node events, which a running run's observations are made from. */
  private readonly events = new EventTable(this.engine);

  async listByRun(runId: string): Promise<Observation[]> {
    const rows = await this.hot.rows("listByRun", (slot) => this.db.selectFrom("observations").select("data").where("run_id", "=", slot(0)).orderBy("ord"), [runId]);
    const stored = rows.map((r) => JSON.parse(r.data) as Observation);
    if (stored.length === 0) return observationsFromEvents(runId, await this.eventTexts(runId));
    // Stub rows stored by earlier versions are filled from the events.
    const filled = stored.some(isObservationStub) ? fillFromEvents(stored, await this.eventTexts(runId)) : stored;
    return hydratePayloads(filled, this.payloads.load);
  }

  /** Every event text of a run, in order, whole. */
  private async eventTexts(runId: string): Promise<string[]> {
    const texts: string[] = [];
    for (let after = -1; ;) {
      const page = await this.events.listAfter(runId, after, EVENT_PAGE);
      texts.push(...page.map((e) => e.json));
      if (page.length < EVENT_PAGE) return texts;
      after = page.at(-1)!.seq;
    }
  }

  /** How many node invocations each of these runs executed (not taken from the cache): one query for many runs. */
  async countExecuted(runIds: readonly string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>(runIds.map((id) => [id, 0]));
    const rows = await rowsByIds(runIds, (chunk) => this.db.selectFrom("observations").select(["run_id", "data"]).where("run_id", "in", chunk).execute());
    // `cached` sits in the JSON document (both engines): read here, as listByRun's callers did.
    for (const row of rows) if ((JSON.parse(row.data) as Observation).cached !== true) counts.set(row.run_id, (counts.get(row.run_id) ?? 0) + 1);
    return counts;
  }

  /** Inserts or replaces observations by (runId, invocationId), several rows a statement (the run writer flushes hundreds at once); the last copy of an invocation wins. */
  async upsert(items: OrderedObservation[]): Promise<void> {
    // One INSERT cannot touch a row twice (PostgreSQL refuses it): one row per invocation, its last copy.
    const rows = new Map(items.map(({ ord, observation: o }) => [`${o.runId}\u0000${o.invocationId}`, { run_id: o.runId, invocation_id: o.invocationId, ord, data: this.redact(o) }]));
    await this.upsertRows("observations", ["run_id", "invocation_id"], [...rows.values()]);
  }

  /**
   * Replaces every observation of each run with its list, in that order: one delete and one insert for all (the run
   * writer's flush of the runs that ended); a run named twice gets its last list.
   */
  async replaceForRuns(finals: ReadonlyArray<{ runId: string; observations: Observation[] }>): Promise<void> {
    const last = new Map(finals.map((f) => [f.runId, f.observations]));
    if (last.size === 0) return;
    await atomically(this.engine, async () => {
      for (const chunk of powerOfTwoChunks([...last.keys()], ID_LIST_CHUNK)) {
        const ids = (slot: SlotOf) => chunk.map((_, i) => slot(i));
        await this.hot.run(`deleteRuns:${chunk.length}`, (slot) => this.db.deleteFrom("observations").where("run_id", "in", ids(slot)), chunk);
      }
      await this.upsert([...last].flatMap(([runId, observations]) => observations.map((observation, ord) => ({ ord, observation: { ...observation, runId } }))));
    });
  }
}
