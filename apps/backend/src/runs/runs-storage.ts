import type { JournalStorage } from "../events/write-batch.ts";
import type { WorkflowTable } from "../workflows/workflow-repository.ts";

/** The storage runs/ needs: the run journal's tables and the workflows runs are started from. */
export interface RunsStorage extends JournalStorage {
  readonly workflows: WorkflowTable;
}
