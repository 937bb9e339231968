import type { Observation, Workflow } from "@weft/types";
import type { StorageEngine } from "../storage/storage.ts";
import { present } from "../storage/row-values.ts";
import { atomically } from "../storage/table.ts";
import type { RunRecord, RunRepository, RunUpdate } from "./run-repository.ts";
import type { ObservationRepository, OrderedObservation } from "./observation-repository.ts";
import type { EventRepository, StoredEvent } from "./event-repository.ts";

/** What one flush of the run writer stores, all or nothing. */
export interface WriteBatch {
  /** Runs started outside the API (an agent's deliberations and actions), stored with their first events. */
  newRuns: { record: RunRecord; workflow: Workflow | undefined }[];
  events: StoredEvent[];
  observations: OrderedObservation[];
  /** A finished run's final observations, replacing what was stored for it while it ran. */
  finalObservations: { runId: string; observations: Observation[] }[];
  runUpdates: RunUpdate[];
}

/** The run writer's flush through the repositories, in one transaction (the journal's own, when it calls inside one). */
export function batchWriter(engine: StorageEngine, runs: RunRepository, events: EventRepository, observations: ObservationRepository): (batch: WriteBatch) => Promise<void> {
  return (batch) =>
    atomically(engine, async () => {
      for (const run of batch.newRuns) await runs.create(run.record, run.workflow);
      await events.append(batch.events);
      await observations.upsert(batch.observations);
      // Every run that ended since the last flush in two statements; a run's updates (started, ended) in one.
      await observations.replaceForRuns(batch.finalObservations);
      for (const update of mergedUpdates(batch.runUpdates)) await runs.update(update);
    });
}

/** One update per run, in the order runs first appear: a later update's values over an earlier one's (what applying them in turn stores). */
export function mergedUpdates(updates: readonly RunUpdate[]): RunUpdate[] {
  const byRun = new Map<string, RunUpdate>();
  for (const update of updates) byRun.set(update.id, { ...byRun.get(update.id), ...present(update), id: update.id, status: update.status });
  return [...byRun.values()];
}
