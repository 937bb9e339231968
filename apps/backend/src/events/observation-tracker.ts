import { isWorkflowRunEvent, type Observation, type RunEvent } from "@weft/types";

interface Started {
  nodeId: string;
  nodeType: string;
  inputs: Record<string, unknown>;
  startedAt: number;
  attempt: number;
  chunks: unknown[];
  ord: number;
}

/**
 * Turns a run's node events into Observations as the run goes, so a running run's finished nodes
 * can be inspected before it ends. The engine's RunResult stays the final word at the end.
 */
export class ObservationTracker {
  private readonly open = new Map<string, Started>();
  private nextOrd = 0;

  constructor(
    private readonly runId: string,
    private readonly emit: (ord: number, observation: Observation) => void,
  ) {}

  onEvent(event: RunEvent): void {
    if (!isWorkflowRunEvent(event)) return;
    switch (event.type) {
      case "node.started": {
        const known = this.open.get(event.invocationId);
        if (known) {
          known.attempt = event.attempt;
          return;
        }
        this.open.set(event.invocationId, {
          nodeId: event.nodeId,
          nodeType: event.nodeType,
          inputs: event.inputs,
          startedAt: event.ts,
          attempt: event.attempt,
          chunks: [],
          ord: this.nextOrd++,
        });
        return;
      }
      case "node.chunk":
        this.open.get(event.invocationId)?.chunks.push(event.chunk);
        return;
      case "node.completed":
      case "node.failed": {
        // A node that completed within its call, or from the cache, has no node.started: its completion carries what one would.
        const started = this.open.get(event.invocationId) ?? (event.type === "node.completed" ? this.unstarted(event) : undefined);
        if (!started) return;
        this.open.delete(event.invocationId);
        const observation: Observation = {
          runId: this.runId,
          nodeId: event.nodeId,
          invocationId: event.invocationId,
          nodeType: started.nodeType,
          status: event.type === "node.completed" ? "completed" : "failed",
          inputs: started.inputs,
          outputs: event.type === "node.completed" ? event.outputs : {},
          chunks: started.chunks,
          startedAt: started.startedAt,
          durationMs: event.durationMs,
          cached: event.type === "node.completed" ? event.cached : false,
          attempts: started.attempt,
        };
        if (event.type === "node.failed") {
          observation.error = event.error;
          if (event.handled) {
            observation.handled = true;
            observation.outputs = event.outputs ?? {};
          }
        }
        this.emit(started.ord, observation);
        return;
      }
      case "node.skipped":
        this.emit(this.nextOrd++, {
          runId: this.runId,
          nodeId: event.nodeId,
          invocationId: `skipped:${event.nodeId}`,
          nodeType: "",
          status: "skipped",
          inputs: {},
          outputs: {},
          chunks: [],
          skipReason: event.reason,
          startedAt: event.ts,
          durationMs: 0,
          cached: false,
          attempts: 0,
        });
        return;
      case "node.retrying":
      case "run.started":
      case "run.completed":
      case "run.failed":
      case "run.cancelled":
      case "run.waiting":
        return;
      default: {
        const never: never = event;
        return never;
      }
    }
  }

  private unstarted(event: Extract<RunEvent, { type: "node.completed" }>): Started | undefined {
    if (event.inputs === undefined || event.nodeType === undefined) return undefined;
    return { nodeId: event.nodeId, nodeType: event.nodeType, inputs: event.inputs, startedAt: event.ts - event.durationMs, attempt: event.cached ? 0 : 1, chunks: [], ord: this.nextOrd++ };
  }
}
