/** What each shipped example shows, in a few words (Home's cards); an example not named here shows its size. */
export const EXAMPLE_SHOWS: Readonly<Record<string, string>> = {
  "text-pipeline": "a chain of text nodes",
  branch: "if/else · a skipped branch · coalesce",
  "switch-route": "switch · one case runs",
  "fan-out-fan-in": "parallel branches joined",
  "partial-failure": "a failing node · what still completes",
  "calls-skill": "one skill called twice",
  "summarize-skill": "a skill: inputs and outputs",
  "map-summaries": "core:map · sandboxed JavaScript",
  "build-messages": "chat messages for an LLM call",
  "post-note-skill": "a scene skill · world state · events",
};

/**
 * What Home's "Run" offers for an example's required inputs that have no default (the Run dialog shows them,
 * prefilled, for the user to keep or change); an example whose inputs all have defaults runs without asking.
 */
export const EXAMPLE_INPUTS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  "summarize-skill": { text: "Weft is a visual editor for workflows: wire typed nodes on a canvas, run them, and see what every node got, gave and how long it took." },
  "post-note-skill": { note: "The coffee machine on the second floor is fixed." },
};
