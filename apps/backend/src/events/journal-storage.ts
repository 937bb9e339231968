import type { StorageEngine } from "../storage/storage.ts";
import { RunTable, type RunRepository } from "./run-repository.ts";
import { EventTable, type EventRepository } from "./event-repository.ts";
import { ObservationTable, type ObservationRepository } from "./observation-repository.ts";
import { sqliteBatchWriter } from "./sqlite-batch-writer.ts";
import type { WriteBatch } from "./write-batch.ts";

/** The run journal's tables: runs, their observations and every stream's events, and the flush that writes them together. */
export interface JournalRepositories {
  readonly runs: RunRepository;
  readonly observations: ObservationRepository;
  readonly events: EventRepository;
  /** Stores events, observations and run status changes in one transaction. */
  writeBatch(batch: WriteBatch): Promise<void>;
}

/** The storage events/ (and every domain above it that reads runs or events) needs. */
export interface JournalStorage extends StorageEngine, JournalRepositories {}

/** The journal's repositories on the engine's connection; SQLite flushes by hand (sqlite-batch-writer.ts), PostgreSQL through the repositories. */
export function journalRepositories(engine: StorageEngine): JournalRepositories {
  const { sql, redactor, transaction } = engine;
  const runs = new RunTable(sql, redactor);
  const events = new EventTable(sql, transaction);
  const observations = new ObservationTable(sql, redactor, transaction);
  let writeAll: ((batch: WriteBatch) => void) | undefined;
  const writeBatch = async (batch: WriteBatch): Promise<void> => {
    if (sql.engine === "sqlite") {
      // Prepared on first use: the tables exist once the migrations ran.
      const write = (writeAll ??= sqliteBatchWriter(sql.db, redactor));
      return void (await sql.gate(() => write(batch)));
    }
    await transaction(async () => {
      for (const run of batch.newRuns) await runs.create(run.record, run.workflow);
      await events.append(batch.events);
      await observations.upsert(batch.observations);
      for (const final of batch.finalObservations) await observations.replaceForRun(final.runId, final.observations);
      for (const update of batch.runUpdates) await runs.update(update);
    });
  };
  return { runs, events, observations, writeBatch };
}
