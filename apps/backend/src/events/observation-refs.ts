import type { Observation } from "@weft/types";

/**
 * A running run's observations, stored as references to its events. The node's inputs, outputs and
 * chunks are already stored in its `node.started`, `node.completed` and `node.chunk` events (written
 * in the same transaction), so the observation row keeps what identifies and summarises the node, and
 * a reader fills the rest from the events (`fillFromEvents`). A finished run's final observations
 * (`replaceObservations`) are stored whole.
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
    else if (event.type === "node.completed") node.outputs = event.outputs ?? {};
    else if (event.type === "node.chunk") node.chunks.push(event.chunk);
  }
  return observations.map((o) => {
    if (!isObservationStub(o)) return o;
    const { [FROM_EVENTS_KEY]: _marker, ...rest } = o as unknown as Stub;
    const node = found.get(o.invocationId);
    return { ...rest, inputs: node?.inputs ?? {}, outputs: node?.outputs ?? {}, chunks: node?.chunks ?? [] } as Observation;
  });
}
