import type { Observation, Workflow } from "@weft/types";
import type { RunRecord, RunUpdate } from "./run-repository.ts";
import type { OrderedObservation } from "./observation-repository.ts";
import type { StoredEvent } from "./event-repository.ts";

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
