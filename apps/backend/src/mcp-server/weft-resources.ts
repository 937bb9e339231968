import { ErrorCode, McpError, type ReadResourceResult, type Resource, type ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import type { RunService } from "../runs/run-service.ts";
import type { RunsStorage } from "../runs/runs-storage.ts";
import { previewObservation, previewRun } from "../events/large-values.ts";
import { ServiceError } from "../service-error.ts";
import { mayCall, type McpCaller } from "./mcp-caller.ts";

/** The MCP spec's code for a resource that does not exist. */
export const RESOURCE_NOT_FOUND = -32002;
/** A resource's text is at most this long; each large value in it is already a preview (`events/large-values.ts`). */
export const MAX_RESOURCE_CHARS = 1_000_000;
/** How many recent runs `resources/list` names (older ones are read by their URI). */
const LISTED_RUNS = 50;
const JSON_MIME = "application/json";

/** What a `weft://` URI names. */
export type WeftResource = { kind: "workflow"; id: string } | { kind: "run"; id: string } | { kind: "observations"; id: string };

const URI = /^weft:\/\/(workflows|runs)\/([^/?#]+)(\/observations)?$/;

export function parseResourceUri(uri: string): WeftResource | undefined {
  const match = URI.exec(uri);
  if (!match) return undefined;
  const id = decodeURIComponent(match[2] ?? "");
  if (match[1] === "workflows") return match[3] === undefined ? { kind: "workflow", id } : undefined;
  return { kind: match[3] === undefined ? "run" : "observations", id };
}

export function resourceUri(resource: WeftResource): string {
  const id = encodeURIComponent(resource.id);
  switch (resource.kind) {
    case "workflow":
      return `weft://workflows/${id}`;
    case "run":
      return `weft://runs/${id}`;
    case "observations":
      return `weft://runs/${id}/observations`;
    default: {
      const never: never = resource;
      return never;
    }
  }
}

/** The API route that reads the same thing: the caller's role must allow it there to read it here. */
function apiPathOf(resource: WeftResource): string {
  return resource.kind === "workflow" ? `/api/workflows/${encodeURIComponent(resource.id)}` : `/api/runs/${encodeURIComponent(resource.id)}`;
}

export const RESOURCE_TEMPLATES: ResourceTemplate[] = [
  { uriTemplate: "weft://workflows/{id}", name: "workflow", title: "Workflow definition", description: "A stored workflow (nodes, edges, settings) as JSON.", mimeType: JSON_MIME },
  { uriTemplate: "weft://runs/{id}", name: "run", title: "Run result", description: "A run's record: status, inputs, outputs, error. Subscribe to follow a running run.", mimeType: JSON_MIME },
  {
    uriTemplate: "weft://runs/{id}/observations",
    name: "run-observations",
    title: "Run observations",
    description: "What each node of a run received, produced and streamed. Subscribe to follow a running run.",
    mimeType: JSON_MIME,
  },
];

export interface ResourceDeps {
  storage: RunsStorage;
  runs: RunService;
}

/** The workflows and the most recent runs the caller may read. */
export async function listResources(deps: ResourceDeps, caller: McpCaller): Promise<Resource[]> {
  const resources: Resource[] = [];
  const { items } = await deps.storage.workflows.summaries();
  for (const w of items) {
    const resource: WeftResource = { kind: "workflow", id: w.id };
    if (!mayCall(caller, "GET", apiPathOf(resource))) continue;
    resources.push({ uri: resourceUri(resource), name: w.id, title: w.name, mimeType: JSON_MIME, ...(w.description ? { description: w.description } : {}) });
  }
  for (const run of await deps.runs.list({ limit: LISTED_RUNS })) {
    const resource: WeftResource = { kind: "run", id: run.id };
    if (!mayCall(caller, "GET", apiPathOf(resource))) continue;
    resources.push({ uri: resourceUri(resource), name: `run ${run.id}`, title: `Run of ${run.workflowId} (${run.status})`, mimeType: JSON_MIME });
  }
  return resources;
}

function notFoundError(uri: string, hint: string): McpError {
  return new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}. ${hint}`, { uri });
}

/** A resource the caller may read, or the MCP error saying why not (an unreadable one is "not found": its existence is not told). */
export function checkedResource(uri: string, caller: McpCaller): WeftResource {
  const resource = parseResourceUri(uri);
  if (!resource) throw notFoundError(uri, "Weft's resources are weft://workflows/<id>, weft://runs/<id> and weft://runs/<id>/observations.");
  if (!mayCall(caller, "GET", apiPathOf(resource))) throw notFoundError(uri, `Your role (${caller.role}) may not read it.`);
  return resource;
}

async function contentOf(deps: ResourceDeps, resource: WeftResource, uri: string): Promise<unknown> {
  if (resource.kind === "workflow") {
    const stored = await deps.storage.workflows.get(resource.id);
    if (!stored) throw notFoundError(uri, "resources/list names the workflows.");
    return stored.document;
  }
  try {
    const answer = await deps.runs.get(resource.id);
    return resource.kind === "run" ? previewRun(answer.run) : answer.observations.map(previewObservation);
  } catch (error) {
    if (error instanceof ServiceError && error.code === "NOT_FOUND") throw notFoundError(uri, "resources/list names the recent runs.");
    throw error;
  }
}

/** One resource as JSON text, secrets redacted, refused when over the size limit (with where to read it in parts). */
export async function readResource(deps: ResourceDeps, uri: string, caller: McpCaller): Promise<ReadResourceResult> {
  const resource = checkedResource(uri, caller);
  const text = deps.storage.redactor.text(JSON.stringify(await contentOf(deps, resource, uri), null, 2));
  if (text.length > MAX_RESOURCE_CHARS) {
    throw new McpError(
      ErrorCode.InvalidRequest,
      `RESOURCE_TOO_LARGE: ${uri} is ${text.length} characters, over the limit of ${MAX_RESOURCE_CHARS}; read it in parts through the API (GET ${apiPathOf(resource)}, GET /api/runs/<id>/value).`,
      { uri, size: text.length, limit: MAX_RESOURCE_CHARS },
    );
  }
  return { contents: [{ uri: resourceUri(resource), mimeType: JSON_MIME, text }] };
}
