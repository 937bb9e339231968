import { RunEventSchema, type NodeError, type RunEvent } from "@weft/types";
import type { EventHub } from "../events/event-hub.ts";
import type { StoredEvent } from "../events/event-repository.ts";
import { sourceEvent } from "../events/event-journal.ts";
import type { RunsStorage } from "./runs-storage.ts";

/** How a run ended, as an MCP tool call reports it. */
export type RunEnding =
  { status: "completed"; outputs: Record<string, unknown> } | { status: "failed"; outputs: Record<string, unknown>; error: NodeError } | { status: "cancelled" | "interrupted"; reason: string };

function parseEvent(json: string): RunEvent | undefined {
  const parsed = RunEventSchema.safeParse(JSON.parse(json));
  return parsed.success ? parsed.data : undefined;
}

/** The run's last event, when this is one. */
function endingOf(event: StoredEvent): RunEnding | undefined {
  if (event.type !== "run.completed" && event.type !== "run.failed" && event.type !== "run.cancelled") return undefined;
  // Read from the text, which is redacted (the answer must not carry a secret). This process's own event was made by
  // the engine, so its text is not checked against the schema again (~1% of a hook request's CPU); one read back or
  // relayed from another process is.
  const e = sourceEvent(event) !== undefined ? (JSON.parse(event.json) as RunEvent) : parseEvent(event.json);
  if (e === undefined) return undefined;
  if (e.type === "run.completed") return { status: "completed", outputs: e.outputs };
  if (e.type === "run.failed") return { status: "failed", outputs: e.outputs, error: e.error };
  if (e.type === "run.cancelled") return { status: "cancelled", reason: e.reason };
  return undefined;
}

/**
 * The ending of a run from now on (`EventHub.subscribeEnding`), without reading its record: for a run not handed over
 * yet, which cannot have ended before. `stop` once it is no longer waited for.
 */
export function followEnding(hub: EventHub, runId: string): { ending: Promise<RunEnding>; stop: () => void } {
  let stop = () => {};
  const ending = new Promise<RunEnding>((resolve) => {
    // The ending only: in queue mode, following the whole stream would read each of its events from storage.
    stop = hub.subscribeEnding(runId, (event) => {
      const ended = endingOf(event);
      if (ended) resolve(ended);
    });
  });
  return { ending, stop };
}

/**
 * Resolves with the run's ending, from its last event as the journal publishes it (outputs come with
 * it, so there is no wait for the run record's own update). A run already recorded as ended, before
 * the subscription began, is answered from its record.
 */
export async function runEnding(hub: EventHub, storage: RunsStorage, runId: string): Promise<RunEnding> {
  const followed = followEnding(hub, runId);
  try {
    const record = await storage.runs.get(runId);
    if (record?.status === "completed") return { status: "completed", outputs: record.outputs };
    // A budget's refusal is a failure to the caller, with the refused call's error (which budget, how to raise it).
    if (record?.status === "failed" || record?.status === "budget_exceeded")
      return { status: "failed", outputs: record.outputs, error: record.error ?? { code: "FAILED", message: "The run failed." } };
    if (record?.status === "cancelled" || record?.status === "interrupted") return { status: record.status, reason: record.error?.message ?? `The run was ${record.status}.` };
    return await followed.ending;
  } finally {
    followed.stop();
  }
}
