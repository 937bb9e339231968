import type { Workflow } from "@weft/types";

/** Where a template's copy comes from: a shipped workflow, agent or scene (copied on the server), or a document of its own. */
export type TemplateSource = { kind: "workflow"; id: string } | { kind: "agent"; id: string } | { kind: "scene"; id: string } | { kind: "document"; document: Workflow };

/** A starting point in the gallery: using it makes a copy the user owns; the original never opens. */
export interface Template {
  key: string;
  title: string;
  /** One line: what the copy is for. */
  description: string;
  /** What it shows, in a few words. */
  shows: string;
  source: TemplateSource;
}

/** Fetches a page and has a model answer with JSON that fits a schema: an HTTP call and structured output. */
const httpStructured: Workflow = {
  id: "http-structured",
  name: "HTTP + structured output",
  description: "Fetches a page with http:request and has the model answer a question about it as JSON that fits a schema (llm:structured).",
  revision: 0,
  tags: [],
  annotations: [],
  nodes: [
    { id: "url", type: "core:workflow-input", position: { x: 0, y: 0 }, label: "URL", config: { name: "url", portType: "string", required: true, description: "The page to read." }, inputs: {} },
    { id: "fetch", type: "http:request", position: { x: 260, y: 0 }, label: "Fetch the page", config: {}, inputs: { responseType: "text" } },
    {
      id: "ask",
      type: "llm:structured",
      position: { x: 520, y: 0 },
      label: "Answer as JSON",
      // A forced tool call: the built-in demo LLM answers it (it ignores a json_schema response format), as do most providers.
      config: { mode: "tool", schema: { type: "object", properties: { title: { type: "string" }, summary: { type: "string" } }, required: ["title", "summary"] } },
      inputs: { system: "Read the page you are given and answer with its title and a one-sentence summary." },
    },
    { id: "out", type: "core:workflow-output", position: { x: 800, y: 0 }, label: "Answer", config: { name: "answer", portType: "json", description: "The title and summary." }, inputs: {} },
  ],
  edges: [
    { id: "e1", source: "url", sourceHandle: "value", target: "fetch", targetHandle: "url" },
    { id: "e2", source: "fetch", sourceHandle: "body", target: "ask", targetHandle: "prompt" },
    { id: "e3", source: "ask", sourceHandle: "value", target: "out", targetHandle: "value" },
  ],
};

/** A request waits for a person's yes or no; only the chosen branch runs. */
const approvalFlow: Workflow = {
  id: "approval-flow",
  name: "Approve before it runs",
  description: "Asks a person (the Approvals inbox, the API or a signed link) before going on: only the branch of their decision runs.",
  revision: 0,
  tags: [],
  annotations: [],
  nodes: [
    {
      id: "request",
      type: "core:workflow-input",
      position: { x: 0, y: 80 },
      label: "Request",
      config: { name: "request", portType: "string", required: true, description: "What needs a yes or no." },
      inputs: {},
    },
    {
      id: "gate",
      type: "core:approval",
      position: { x: 260, y: 80 },
      label: "Ask for approval",
      config: { question: "Go ahead with this request?", role: "editor", timeoutSeconds: 86400, defaultDecision: "rejected" },
      inputs: {},
    },
    { id: "done", type: "core:text-template", position: { x: 540, y: 0 }, label: "Go ahead", config: { template: "Done: {{0}}" }, inputs: {} },
    { id: "refused", type: "core:text-template", position: { x: 540, y: 180 }, label: "Refuse", config: { template: "Refused: {{0}}" }, inputs: {} },
    { id: "result", type: "core:workflow-output", position: { x: 820, y: 0 }, label: "Result", config: { name: "result", portType: "string", description: "What was done." }, inputs: {} },
    {
      id: "refusal",
      type: "core:workflow-output",
      position: { x: 820, y: 180 },
      label: "Refusal",
      config: { name: "refusal", portType: "string", description: "Why nothing was done." },
      inputs: {},
    },
  ],
  edges: [
    { id: "e1", source: "request", sourceHandle: "value", target: "gate", targetHandle: "data" },
    { id: "e2", source: "gate", sourceHandle: "approved", target: "done", targetHandle: "values" },
    { id: "e3", source: "gate", sourceHandle: "rejected", target: "refused", targetHandle: "values" },
    { id: "e4", source: "done", sourceHandle: "text", target: "result", targetHandle: "value" },
    { id: "e5", source: "refused", sourceHandle: "text", target: "refusal", targetHandle: "value" },
  ],
};

/** The gallery: each opens as a copy ("… (copy)", a new id). */
export const TEMPLATES: readonly Template[] = [
  {
    key: "chat-agent",
    title: "Chat agent with tools",
    description: "An agent that answers by running tools: JavaScript, HTTP and map.",
    shows: "agent · tools · chat",
    source: { kind: "agent", id: "toolsmith" },
  },
  {
    key: "scene",
    title: "A scene of two agents",
    description: "Two agents share a board: one posts notes, an event wakes the other.",
    shows: "scene · world state · events",
    source: { kind: "scene", id: "notice-board" },
  },
  {
    key: "map",
    title: "Map over a list",
    description: "Runs a skill once per item of a list, a few at a time, then reports.",
    shows: "core:map · skill · code",
    source: { kind: "workflow", id: "map-summaries" },
  },
  {
    key: "http-structured",
    title: "HTTP + structured output",
    description: "Fetches a page and has the model answer as JSON that fits a schema.",
    shows: "http:request · llm:structured",
    source: { kind: "document", document: httpStructured },
  },
  {
    key: "approval",
    title: "Approve before it runs",
    description: "Waits for a person's yes or no; only the branch of the decision runs.",
    shows: "core:approval · Approvals inbox",
    source: { kind: "document", document: approvalFlow },
  },
];
