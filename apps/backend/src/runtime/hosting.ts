import type { EventJournal } from "../events/event-journal.ts";
import type { RunRuntime } from "./run-runtime.ts";

/**
 * What a process's agents' and scenes' services run with: its storage and journal, and the runtime's engine, nodes,
 * LLM, tools and permission broker. An API process and a `weft worker` hand the same set to both.
 */
export function hostingOf<S>(rt: RunRuntime, storage: S, journal: EventJournal) {
  return {
    storage,
    journal,
    catalog: rt.catalog,
    workflows: rt.workflows,
    engineFor: rt.engineFor,
    llm: rt.llm,
    ...(rt.toolHost ? { toolHost: rt.toolHost } : {}),
    permissionBroker: rt.permissionBroker,
  };
}
