import type { StorageEngine } from "../storage/storage.ts";
import { RunTable, type RunRepository } from "./run-repository.ts";
import { EventTable, type EventRepository } from "./event-repository.ts";
import { ObservationTable, type ObservationRepository } from "./observation-repository.ts";
import { batchWriter, type WriteBatch } from "./write-batch.ts";

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

/** The journal's repositories on the engine's connection. */
export function journalRepositories(engine: StorageEngine): JournalRepositories {
  const [runs, events, observations] = [new RunTable(engine), new EventTable(engine), new ObservationTable(engine)];
  return { runs, events, observations, writeBatch: batchWriter(engine, runs, events, observations) };
}
