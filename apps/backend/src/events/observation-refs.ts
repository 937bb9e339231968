import type { Observation, RunEvent } from "@weft/types";
import { ObservationTracker } from "./observation-tracker.ts";

/**
 * A running run's observations come from its events: the node's inputs, outputs and chunks are
 * stored in its `node.started`, `node.completed` and `node.chunk` events. The journal stores no row
 * for them (`observationsFromEvents` makes them when read); it used to store a stub per node, which
 * keeps what identifies and summarises the node and is filled from the events (`fillFromEvents`),
 * and such rows are still read. A finished run's final observations (`replaceObservations`) are
 * stored whole.
 */
export const FROM_EVENTS_KEY = "$weftFromEvents";

type Stub = Omit<Observation, "inputs" | "outputs" | "chunks"> & { [FROM_EVENTS_KEY]: 1 };

/** The observation without what its events hold. Typed as an Observation: that is what the row stands for once filled. */
export function observationStub(observation: Observation): Observation {
  if (observation.status === "skipped") return observation;
  const { inputs: _inputs, outputs: _outputs, chunks: _chunks, ...rest } = observation;
  const stub: Stub = { ...rest, [FROM_EVENTS_KEY]: 1 };
  return stub as unknown as Observation;
}

export function isObservationStub(observation: Observation): boolean {
  return (observation as unknown as Record<string, unknown>)[FROM_EVENTS_KEY] === 1;
}

interface NodeEvent {
  type: string;
  invocationId?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  chunk?: unknown;
}

/** The observations with every stub filled from the run's events (as stored, in seq order). */
export function fillFromEvents(observations: Observation[], eventTexts: readonly string[]): Observation[] {
  const wanted = new Set(observations.filter(isObservationStub).map((o) => o.invocationId));
  const found = new Map<string, { inputs?: Record<string, unknown>; outputs?: Record<string, unknown>; chunks: unknown[] }>();
  for (const text of eventTexts) {
    const event = JSON.parse(text) as NodeEvent;
    if (event.invocationId === undefined || !wanted.has(event.invocationId)) continue;
    const node = found.get(event.invocationId) ?? { chunks: [] };
    found.set(event.invocationId, node);
    // The first start holds the inputs (a retry starts again with the same ones).
    if (event.type === "node.started") node.inputs ??= event.inputs ?? {};
    else if (event.type === "node.completed") {
      node.outputs = event.outputs ?? {};
      // A node that completed within its call has no start: its completion holds the inputs.
      if (event.inputs !== undefined) node.inputs ??= event.inputs;
    } else if (event.type === "node.chunk") node.chunks.push(event.chunk);
  }
  return observations.map((o) => {
    if (!isObservationStub(o)) return o;
    const { [FROM_EVENTS_KEY]: _marker, ...rest } = o as unknown as Stub;
    const node = found.get(o.invocationId);
    return { ...rest, inputs: node?.inputs ?? {}, outputs: node?.outputs ?? {}, chunks: node?.chunks ?? [] } as Observation;
  });
}

/**
 * A run's observations as the journal's ObservationTracker made them while it ran, from its stored
 * events (whole, in seq order): the running run's rows the journal no longer stores (`addObservation`).
 */
export function observationsFromEvents(runId: string, eventTexts: readonly string[]): Observation[] {
  const made: Array<{ ord: number; observation: Observation }> = [];
  const tracker = new ObservationTracker(runId, (ord, observation) => made.push({ ord, observation }));
  for (const text of eventTexts) tracker.onEvent(JSON.parse(text) as RunEvent);
  return made.sort((a, b) => a.ord - b.ord).map((m) => m.observation);
}
