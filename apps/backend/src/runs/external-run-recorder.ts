import { engineError, type RunEvent, type Workflow } from "@weft/types";
import type { EventJournal } from "../events/event-journal.ts";
import { ObservationTracker } from "../events/observation-tracker.ts";

/**
 * Records runs that start outside the API — an agent's deliberations and actions — from their
 * events alone, so they are stored, listed and inspectable like any other run: the record when
 * `run.started` arrives, observations as nodes finish, the outcome with the closing event.
 */
export class ExternalRunRecorder {
  private readonly open = new Map<string, ObservationTracker>();

  constructor(
    private readonly journal: EventJournal,
    /** The stored workflow a run started, when the run's workflow is a stored one (for its snapshot). */
    private readonly storedWorkflow: (workflowId: string) => Workflow | undefined,
    /** The user a run starting now was caused by (who sent the agent the message), recorded as its `createdBy`. */
    private readonly createdBy: () => string | undefined = () => undefined,
  ) {}

  /** A RunEventSink for the runs of one agent (every event of a run, in order, on the run's stream). */
  readonly onEvent = (event: RunEvent): void => {
    const runId = event.streamId;
    if (event.type === "run.started" && !this.open.has(runId)) {
      this.journal.openNew(runId);
      const createdBy = this.createdBy();
      this.journal.addRun(
        {
          id: runId,
          workflowId: event.workflowId,
          workflowRevision: this.storedWorkflow(event.workflowId)?.revision ?? 0,
          status: "running",
          inputs: event.inputs,
          outputs: {},
          createdAt: event.ts,
          startedAt: event.ts,
          ...(createdBy !== undefined ? { createdBy } : {}),
        },
        this.storedWorkflow(event.workflowId),
      );
      this.open.set(runId, new ObservationTracker(runId, (ord, observation) => this.journal.addObservation(ord, observation)));
    }
    const tracker = this.open.get(runId);
    if (!tracker) return;
    tracker.onEvent(this.journal.append(runId, event));
    switch (event.type) {
      case "run.completed":
        this.journal.updateRun({ id: runId, status: "completed", outputs: event.outputs, finishedAt: event.ts, durationMs: event.durationMs });
        break;
      case "run.failed":
        this.journal.updateRun({ id: runId, status: "failed", outputs: event.outputs, error: event.error, finishedAt: event.ts, durationMs: event.durationMs });
        break;
      case "run.cancelled":
        this.journal.updateRun({ id: runId, status: "cancelled", error: engineError("CANCELLED", event.reason), finishedAt: event.ts, durationMs: event.durationMs });
        break;
      default:
        return;
    }
    this.open.delete(runId);
    this.journal.close(runId);
  };

  /** Runs still going (their closing event has not arrived). */
  get openRuns(): string[] {
    return [...this.open.keys()];
  }
}
