import type { StorageEngine } from "../storage/storage.ts";
import { RunTable, type RunRepository } from "./run-repository.ts";
import { EventTable, type EventRepository } from "./event-repository.ts";
import { ObservationTable, type ObservationRepository } from "./observation-repository.ts";
import { batchWriter, type WriteBatch } from "./write-batch.ts";

/** The storage events/ (and every domain above it that reads runs or events) needs: the run journal's tables. */
export interface JournalStorage extends StorageEngine {
  readonly runs: RunRepository;
  readonly observations: ObservationRepository;
  readonly events: EventRepository;
  /** Stores events, observations and run status changes in one transaction. */
  writeBatch(batch: WriteBatch): Promise<void>;
}

/** The journal's repositories on the engine's connection. */
export function journalRepositories(engine: StorageEngine): Omit<JournalStorage, keyof StorageEngine> {
  const [runs, events, observations] = [new RunTable(engine), new EventTable(engine), new ObservationTable(engine)];
  return { runs, events, observations, writeBatch: batchWriter(engine, runs, events, observations) };
}
