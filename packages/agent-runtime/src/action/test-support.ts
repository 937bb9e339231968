import { NodeSpecSchema, WorkflowSchema, type NodeSpecInput, type Workflow } from "@weft/types";
import { buildManifest, type Manifest } from "./manifest/manifest.ts";

/**
 * Tools shaped after seed 004's examples (§4.2, §5), shared by the action tests and the benchmark.
 * Specs only: the parser never executes anything.
 */
const node = (spec: NodeSpecInput) => NodeSpecSchema.parse(spec);

export const FIXTURE_NODES = [
  node({
    type: "world:read",
    title: "Read world state",
    description: "Reads a value from the shared world state.",
    inputs: [
      { id: "path", type: "string", required: true, description: 'The dot-separated path to the value (e.g. "environment.time.current_hour").' },
      { id: "default_value", type: "any", description: "Value to return if path is not found." },
    ],
  }),
  node({
    type: "world:update",
    title: "Update world state",
    description: "Sets or deletes a value in the world state.",
    inputs: [
      { id: "action", type: "string", required: true, options: ["set", "delete"] },
      { id: "path", type: "string", required: true },
      { id: "value", type: "json" },
    ],
  }),
  node({
    type: "event:publish",
    title: "Publish event",
    description: "Publishes an event to the event bus.",
    inputs: [
      { id: "event_type", type: "string", required: true, description: "The type of the event." },
      { id: "payload", type: "json", description: "Event data." },
    ],
  }),
  node({ type: "fs:read-file", title: "Read files", description: "Reads files.", inputs: [{ id: "args", type: "json", required: true }] }),
  node({ type: "fs:read-one", title: "Read one file", description: "Reads one file.", inputs: [{ id: "path", type: "string", required: true }] }),
  node({
    type: "fs:apply-diff",
    title: "Apply diff",
    description: "Applies a unified diff to a file.",
    inputs: [
      { id: "file_path", type: "string", required: true },
      { id: "diff", type: "string", required: true, multiline: true },
      { id: "dry_run", type: "boolean" },
    ],
  }),
  node({ type: "player:info", title: "Player info", description: "Gets a player's information.", inputs: [{ id: "player_id", type: "string", required: true, description: "The player's id." }] }),
  node({
    type: "math:add",
    title: "Add",
    description: "Adds two numbers.",
    inputs: [
      { id: "a", type: "number", required: true },
      { id: "b", type: "number", required: true },
      { id: "precision", type: "integer", min: 0, max: 10 },
    ],
  }),
  node({
    type: "text:join",
    title: "Join",
    description: "Joins texts.",
    inputs: [
      { id: "parts", type: "string", multi: true, required: true },
      { id: "separator", type: "string", default: ", " },
    ],
  }),
  node({
    type: "text:case",
    title: "Change case",
    description: "Changes the case of a text.",
    inputs: [
      { id: "mode", type: "string", options: ["upper", "lower"], required: true },
      { id: "text", type: "string", required: true },
    ],
  }),
  node({ type: "clock:now", title: "Now", description: "The current time.", inputs: [] }),
  node({
    type: "llm:chat",
    title: "Chat",
    description: "Asks an LLM.",
    inputs: [
      { id: "messages", type: "messages", required: true },
      { id: "strict", type: "boolean" },
    ],
  }),
  node({ type: "data:list", title: "List", description: "Takes a list.", inputs: [{ id: "values", type: "array", required: true }] }),
];

function skill(id: string, description: string, inputs: Array<{ name: string; portType: string; required?: boolean; description?: string }>): Workflow {
  return WorkflowSchema.parse({
    id,
    name: id,
    description,
    nodes: [...inputs.map((config, i) => ({ id: `in${i}`, type: "core:workflow-input", config })), { id: "out", type: "core:workflow-output", config: { name: "result", portType: "string" } }],
  });
}

export const FIXTURE_SKILLS = [
  skill("greet-player", "Greets the player appropriately based on context.", [
    { name: "player_id", portType: "string", required: true, description: "The ID of the player to greet." },
    { name: "greeting_context", portType: "string", description: "Additional context for the greeting." },
  ]),
  skill("summarise", "Summarises a text.", [
    { name: "text", portType: "string", required: true },
    { name: "max_words", portType: "integer" },
  ]),
];

export function fixtureManifest(): Manifest {
  return buildManifest({ nodes: FIXTURE_NODES, skills: FIXTURE_SKILLS });
}
