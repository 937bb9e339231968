import type { Observation } from "@weft/types";
import type { JournalStorage } from "./write-batch.ts";
import type { EventRepository } from "./event-repository.ts";
import type { ObservationRepository } from "./observation-repository.ts";
import { hydratePayloads, hydratePayloadTexts } from "./payload-refs.ts";
import { fillFromEvents, isObservationStub, observationsFromEvents } from "./observation-refs.ts";
import { withEnvelope } from "./event-envelope.ts";
import type { PayloadStore } from "./payload-store.ts";

/**
 * The storage as its readers need it when the journal stores large values once (`payload-refs.ts`)
 * and a running run's observations as references to its events (`observation-refs.ts`): events and
 * observations read back whole (runs are, by RunTable itself), so the run debugger and the stream's
 * catch-up answer what they always did. Everything else is the storage itself.
 */
export function withPayloadReads<S extends JournalStorage>(storage: S, payloads: PayloadStore): S {
  const { load } = payloads;
  const events = override<EventRepository>(storage.events, {
    listAfter: async (streamId, after, limit) => {
      const page = await storage.events.listAfter(streamId, after, limit);
      const texts = await hydratePayloadTexts(page.map(withEnvelope), load);
      return page.map((e, at) => ({ ...e, json: texts[at] }));
    },
  });
  const observations = override<ObservationRepository>(storage.observations, {
    listByRun: async (runId) => {
      const stored = await storage.observations.listByRun(runId);
      // None stored: a running run (or an agent's, never finalized), whose observations its node events hold.
      if (stored.length === 0) return observationsFromEvents(runId, await hydratePayloadTexts(await allEventTexts(storage.events, runId), load));
      const filled = stored.some(isObservationStub) ? fillFromEvents(stored, await allEventTexts(storage.events, runId)) : stored;
      return hydratePayloads<Observation[]>(filled, load);
    },
  });
  return override(storage, { events, observations } as Partial<S>);
}

const EVENT_PAGE = 2000;

/** Every stored event text of a stream, in order (references left for the caller to resolve). */
async function allEventTexts(events: EventRepository, streamId: string): Promise<string[]> {
  const out: string[] = [];
  for (let after = -1; ;) {
    const page = await events.listAfter(streamId, after, EVENT_PAGE);
    out.push(...page.map(withEnvelope));
    if (page.length < EVENT_PAGE) return out;
    after = page.at(-1)!.seq;
  }
}

/** The object with some members replaced; the others read from it as they are (methods bound to it: they may use private fields a proxy does not have). */
function override<T extends object>(target: T, replaced: Partial<T>): T {
  return new Proxy(target, {
    get: (inner, key) => {
      if (Object.hasOwn(replaced, key)) return (replaced as Record<PropertyKey, unknown>)[key];
      const value: unknown = Reflect.get(inner, key, inner);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(inner) : value;
    },
  });
}
