import { z } from "zod";
import { RunEventSchema, ValidationIssueSchema, WorkflowSchema, type RunEvent, type ValidationIssue, type Workflow, messageOf } from "@weft/types";
import { LineSplitter } from "./ndjson.ts";
import { ErrorBodySchema, fail, ok, type ApiError, type ApiResult } from "./errors.ts";
import { reportRefused, reportSignedOut } from "./session.ts";
import { takeEarlyAnswer } from "./early-answers.ts";
import {
  HealthSchema,
  type Health,
  NodesResponseSchema,
  OkSchema,
  RunListSchema,
  RunEventsSchema,
  RunResponseSchema,
  StartRunSchema,
  ValidateResponseSchema,
  CallersSchema,
  WorkflowListSchema,
  WorkflowResponseDecoder,
  type ReplyDecoder,
} from "./schemas.ts";

type Method = "GET" | "POST" | "PUT" | "DELETE";
type Fetcher = (url: string, init: RequestInit) => Promise<Response>;

export interface StartRunBody {
  inputs?: Record<string, unknown>;
  /** Node id: it and its dependents run again; the rest may come from the cache. */
  rerunFrom?: string;
  /** The unsaved draft of this workflow, so what the user sees is what runs. */
  workflow?: Workflow;
}

/** Typed client of the Weft HTTP API (docs/api.md). Never throws: every call gives an ApiResult. */
export class ApiClient {
  constructor(
    private readonly baseUrl = "",
    private readonly fetcher: Fetcher = (url, init) => fetch(url, init),
  ) {}

  /** One call: the reply checked against `schema`, any failure as an ApiError (for the clients that extend this one). */
  protected async request<T>(method: Method, path: string, schema: ReplyDecoder<T>, body?: unknown): Promise<ApiResult<T>> {
    // The page's start asked for it already (early-start.js): its parsed 200 is taken; anything else is asked again.
    const early = method === "GET" && this.baseUrl === "" ? await takeEarlyAnswer(path) : undefined;
    if (early !== undefined) return decoded(method, path, schema, 200, early);
    let response: Response;
    try {
      response = await this.fetcher(this.baseUrl + path, {
        method,
        // Every state-changing call says JSON, body or not: the server refuses other types (cross-site forms).
        headers: method === "GET" ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      return fail({ code: "NETWORK_ERROR", status: 0, message: `Could not reach the server (${messageOf(error)}).` });
    }
    const text = await response.text().catch(() => "");
    const json = jsonOrUndefined(text);
    if (response.status === 401) reportSignedOut();
    if (response.status === 403) reportRefused();
    if (!response.ok) return fail(errorFromResponse(response.status, json, text));
    return decoded(method, path, schema, response.status, json);
  }

  /**
   * A call answered with JSON lines (NDJSON): each line is checked against `schema` and handed to
   * `onLine` as it arrives. An error status before the lines start is an ApiError like any other.
   */
  protected async requestLines<S extends z.ZodType>(method: Method, path: string, schema: S, onLine: (line: z.infer<S>) => void): Promise<ApiResult<true>> {
    let response: Response;
    try {
      response = await this.fetcher(this.baseUrl + path, {
        method,
        headers: method === "GET" ? { accept: "application/x-ndjson" } : { accept: "application/x-ndjson", "content-type": "application/json" },
      });
    } catch (error) {
      return fail({ code: "NETWORK_ERROR", status: 0, message: `Could not reach the server (${messageOf(error)}).` });
    }
    if (response.status === 401) reportSignedOut();
    if (response.status === 403) reportRefused();
    if (!response.ok || !response.body) {
      const text = await response.text().catch(() => "");
      return fail(errorFromResponse(response.status, jsonOrUndefined(text), text));
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    const splitter = new LineSplitter();
    const take = (line: string): ApiResult<true> | null => {
      const parsed = schema.safeParse(jsonOrUndefined(line));
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return fail({ code: "BAD_RESPONSE", status: response.status, message: `${method} ${path}: ${issue.path.join(".") || "line"} ${issue.message}` });
      }
      onLine(parsed.data);
      return null;
    };
    try {
      for (;;) {
        const { done, value } = await reader.read();
        for (const line of done ? splitter.end() : splitter.push(value)) {
          const failed = take(line);
          if (failed) {
            await reader.cancel().catch(() => undefined);
            return failed;
          }
        }
        if (done) return ok(true);
      }
    } catch (error) {
      return fail({ code: "NETWORK_ERROR", status: 0, message: `The connection broke while the answer came in (${messageOf(error)}).` });
    }
  }

  /** The health report, also when the server answers 503 with it (something it depends on is down). */
  async health(): Promise<ApiResult<Health>> {
    let response: Response;
    try {
      response = await this.fetcher(this.baseUrl + "/api/health", { method: "GET", headers: { accept: "application/json" } });
    } catch (error) {
      return fail({ code: "NETWORK_ERROR", status: 0, message: `Could not reach the server (${messageOf(error)}).` });
    }
    const text = await response.text().catch(() => "");
    const parsed = HealthSchema.safeParse(jsonOrUndefined(text));
    return parsed.success ? ok(parsed.data) : fail(errorFromResponse(response.status, jsonOrUndefined(text), text));
  }

  async listNodes() {
    const r = await this.request("GET", "/api/nodes", NodesResponseSchema);
    return r.ok ? ok(r.value.nodes) : r;
  }

  async listWorkflows() {
    const r = await this.request("GET", "/api/workflows", WorkflowListSchema);
    return r.ok ? ok(r.value.workflows) : r;
  }

  getWorkflow(id: string) {
    return this.request("GET", `/api/workflows/${enc(id)}`, WorkflowResponseDecoder);
  }

  async createWorkflow(workflow: Workflow) {
    const r = await this.request("POST", "/api/workflows", WorkflowResponseDecoder, { workflow });
    return r.ok ? ok(r.value.workflow) : r;
  }

  /** A stale `baseRevision` fails with REVISION_CONFLICT; `revisionConflict(error)` reads what is stored now. */
  async updateWorkflow(workflow: Workflow, baseRevision: number) {
    const r = await this.request("PUT", `/api/workflows/${enc(workflow.id)}`, WorkflowResponseDecoder, { workflow, baseRevision });
    return r.ok ? ok(r.value.workflow) : r;
  }

  async workflowCallers(id: string) {
    const r = await this.request("GET", `/api/workflows/${enc(id)}/callers`, CallersSchema);
    return r.ok ? ok(r.value.workflows) : r;
  }

  async deleteWorkflow(id: string) {
    const r = await this.request("DELETE", `/api/workflows/${enc(id)}`, OkSchema);
    return r.ok ? ok(true as const) : r;
  }

  async duplicateWorkflow(id: string, body: { id?: string; name?: string } = {}) {
    const r = await this.request("POST", `/api/workflows/${enc(id)}/duplicate`, WorkflowResponseDecoder, body);
    return r.ok ? ok(r.value.workflow) : r;
  }

  exportUrl(id: string): string {
    return `${this.baseUrl}/api/workflows/${enc(id)}/export`;
  }

  /** Imports a workflow document; a taken id gets a fresh one (read it from the result). */
  async importWorkflow(document: unknown) {
    const r = await this.request("POST", "/api/workflows/import", WorkflowResponseDecoder, document);
    return r.ok ? ok(r.value.workflow) : r;
  }

  validateWorkflow(workflow: Workflow) {
    return this.request("POST", "/api/workflows/validate", ValidateResponseSchema, { workflow });
  }

  startRun(workflowId: string, body: StartRunBody) {
    return this.request("POST", `/api/workflows/${enc(workflowId)}/runs`, StartRunSchema, body);
  }

  getRun(runId: string) {
    return this.request("GET", `/api/runs/${enc(runId)}`, RunResponseSchema);
  }

  /** A large value whole, by the link its preview carries (`GET /api/runs/:id/value`); other links are refused. */
  async runValue(href: string): Promise<ApiResult<unknown>> {
    if (!href.startsWith("/api/runs/")) return fail({ code: "BAD_RESPONSE", status: 0, message: `Not a link to a run's value: ${href}` });
    const r = await this.request("GET", href, z.object({ value: z.unknown() }));
    return r.ok ? ok(r.value.value) : r;
  }

  /** A workflow's runs, or (without one) the newest runs of every workflow. */
  async listRuns(workflowId: string | null, limit = 50) {
    const r = await this.request("GET", `/api/runs?${workflowId === null ? "" : `workflowId=${enc(workflowId)}&`}limit=${limit}`, RunListSchema);
    return r.ok ? ok(r.value.runs) : r;
  }

  /**
   * Every event of a stream (a run, conversation or scene id) with `seq > after`, in order, reading
   * page after page while the server has more. Events of kinds this editor does not know are left out.
   */
  async runEvents(streamId: string, after: number): Promise<ApiResult<RunEvent[]>> {
    const events: RunEvent[] = [];
    let from = after;
    for (;;) {
      const r = await this.request("GET", `/api/streams/${enc(streamId)}/events?after=${from}&limit=${EVENT_PAGE}`, RunEventsSchema);
      if (!r.ok) return r;
      for (const raw of r.value.events) {
        const seq = (raw as { seq?: unknown }).seq;
        if (typeof seq === "number") from = Math.max(from, seq);
        const parsed = RunEventSchema.safeParse(raw);
        if (parsed.success) events.push(parsed.data);
      }
      if (!r.value.hasMore || r.value.events.length === 0) return ok(events);
    }
  }

  /** Runs a past run again: the same workflow version and inputs (optionally from one node on). */
  rerun(runId: string, rerunFrom?: string) {
    return this.request("POST", `/api/runs/${enc(runId)}/rerun`, StartRunSchema, rerunFrom ? { rerunFrom } : {});
  }

  /** Forks a past run at a node: what does not depend on the change comes from the run's record (docs/api.md, Forks). */
  forkRun(runId: string, body: { at: string; settings?: Record<string, unknown>; inputs?: Record<string, unknown> }) {
    return this.request("POST", `/api/runs/${enc(runId)}/fork`, StartRunSchema, body);
  }

  async cancelRun(runId: string) {
    const r = await this.request("POST", `/api/runs/${enc(runId)}/cancel`, OkSchema);
    return r.ok ? ok(true as const) : r;
  }
}

const enc = encodeURIComponent;
/** Events per request when catching up (the server allows up to 10,000). */
const EVENT_PAGE = 5000;

/** A successful reply's JSON checked against `schema`. */
function decoded<T>(method: Method, path: string, schema: ReplyDecoder<T>, status: number, json: unknown): ApiResult<T> {
  const parsed = schema.safeParse(json);
  if (parsed.success) return ok(parsed.data);
  const issue = parsed.error.issues[0];
  return fail({ code: "BAD_RESPONSE", status, message: `${method} ${path}: ${issue.path.join(".") || "body"} ${issue.message}` });
}

/** The parsed JSON of a reply's text; undefined when it is empty or not JSON. */
function jsonOrUndefined(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errorFromResponse(status: number, json: unknown, text: string): ApiError {
  const body = ErrorBodySchema.safeParse(json);
  if (body.success) return { status, ...body.data.error };
  const snippet = text.trim().slice(0, 200);
  return {
    code: status >= 500 ? "SERVER_ERROR" : "BAD_RESPONSE",
    status,
    message: `The server answered ${status}${snippet ? `: ${snippet}` : " with no explanation"}.`,
  };
}

const ConflictDetailsSchema = z.object({ currentRevision: z.number(), current: WorkflowSchema });

/** The stored workflow a REVISION_CONFLICT reports, or null when the error is something else. */
export function revisionConflict(error: ApiError): { currentRevision: number; current: Workflow } | null {
  if (error.code !== "REVISION_CONFLICT") return null;
  const parsed = ConflictDetailsSchema.safeParse(error.details);
  return parsed.success ? parsed.data : null;
}

const IssuesSchema = z.array(ValidationIssueSchema);

/** The graph problems a VALIDATION_FAILED error lists (empty when it lists none). */
export function validationIssuesOf(error: ApiError): ValidationIssue[] {
  if (error.code !== "VALIDATION_FAILED") return [];
  const parsed = IssuesSchema.safeParse(error.details?.issues);
  return parsed.success ? parsed.data : [];
}

export const api = new ApiClient();
