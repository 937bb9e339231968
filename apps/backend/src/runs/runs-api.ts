import { Elysia } from "elysia";
import { z } from "zod";
import { ObservationSchema, RunEventSchema, RunStatusSchema, WorkflowSchema } from "@weft/types";
import { ApiError, jsonResponse, notFound } from "../api/errors.ts";
import { parseWith, readBody } from "../api/body.ts";
import { OkAnswer, route, type ApiRoute } from "../api/openapi-routes.ts";
import type { RunsStorage } from "./runs-storage.ts";
import { RunRecordSchema } from "../events/run-repository.ts";
import { actorOf } from "../auth/principal.ts";
import { previewEventJson, previewObservation, previewRun, valueOf } from "../events/large-values.ts";
import type { RunService } from "./run-service.ts";
import { inCallerTrace } from "../tracing/caller-trace.ts";

export interface RunsApiDeps {
  runs: RunService;
  storage: RunsStorage;
  maxBodyBytes: number;
}

const StartBody = z
  .object({
    inputs: z.record(z.string(), z.unknown()).default({}),
    rerunFrom: z.string().min(1).optional(),
    /** An unsaved draft of the workflow to run instead of the stored one. */
    workflow: z.unknown().optional(),
  })
  .strict();
const RerunBody = z.object({ rerunFrom: z.string().min(1).optional() }).strict();
const ForkBody = z
  .object({
    /** The node to fork at: it and what depends on it run again; every other node takes its recorded output. */
    at: z.string().min(1),
    /** Merged over the node's config. */
    settings: z.record(z.string(), z.unknown()).optional(),
    /** Values of the node's input ports, by port id (they replace what an edge brought). */
    inputs: z.record(z.string(), z.unknown()).optional(),
    /** Outputs to pin, by node id then port: those nodes hand these on instead of their recorded outputs. */
    pins: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  })
  .strict();

const integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const ListQuery = z.object({
  workflowId: z.string().min(1).optional(),
  status: RunStatusSchema.optional(),
  limit: integer(1, 500).default(50),
  before: integer(0, Number.MAX_SAFE_INTEGER).optional(),
});
const ValueQuery = z.object({
  /** The node whose value it is; absent: the run's own inputs or outputs. */
  node: z.string().min(1).optional(),
  side: z.enum(["inputs", "outputs", "chunks"]),
  /** The port (or the run's input or output name), or a chunk's index. */
  key: z.string().min(1),
});
const EventsQuery = z.object({
  after: integer(-1, Number.MAX_SAFE_INTEGER).default(-1),
  limit: integer(1, 10_000).default(1000),
});

/** The run routes: start (a saved workflow or a draft), list, read, events, cancel, rerun. */
export function runsApi(deps: RunsApiDeps) {
  const { runs, storage, maxBodyBytes } = deps;

  /** Stored events as one JSON document, spliced from their stored text (no re-encoding). */
  async function eventsPage(streamId: string, query: unknown): Promise<Response> {
    const { after, limit } = parseWith(EventsQuery, query, "query");
    const page = await storage.events.listAfter(streamId, after, limit + 1);
    const hasMore = page.length > limit;
    const events = hasMore ? page.slice(0, limit) : page;
    return new Response(`{"events":[${events.map((e) => previewEventJson(e.json)).join(",")}],"hasMore":${hasMore}}`, {
      headers: { "content-type": "application/json; charset=utf-8" },
    });
  }

  return (
    new Elysia()
      // A caller's `traceparent`: the run joins its trace.
      .post("/api/workflows/:id/runs", ({ params, request }) =>
        inCallerTrace(request, async () => {
          const body = await readBody(request, StartBody, maxBodyBytes, { allowEmpty: true });
          const started = await runs.start({
            workflowId: params.id,
            inputs: body.inputs,
            ...(body.rerunFrom !== undefined ? { rerunFrom: body.rerunFrom } : {}),
            ...(body.workflow !== undefined ? { draft: body.workflow } : {}),
            createdBy: actorOf(request),
          });
          return jsonResponse(started, 202);
        }),
      )
      .get("/api/runs", async ({ query }) => {
        const q = parseWith(ListQuery, query, "query");
        return jsonResponse({ runs: await runs.list(q) });
      })
      .get("/api/runs/:id", async ({ params }) => {
        // Values over 64 KB as previews with a link to the route below: a run with a huge output stays quick to open.
        const answer = await runs.get(params.id);
        return jsonResponse({ ...answer, run: previewRun(answer.run), observations: answer.observations.map(previewObservation) });
      })
      .get("/api/runs/:id/value", async ({ params, query }) => {
        const q = parseWith(ValueQuery, query, "query");
        const found = valueOf(await runs.get(params.id), q.side, q.key, q.node);
        if (!found) {
          const where = q.node === undefined ? `run "${params.id}"` : `node "${q.node}" of run "${params.id}"`;
          throw new ApiError("NOT_FOUND", `${where} has no ${q.side} value "${q.key}"; the links in GET /api/runs/${params.id} name the ones it has.`, { ...q });
        }
        return jsonResponse(found);
      })
      .get("/api/runs/:id/events", async ({ params, query }) => {
        if (!(await storage.runs.get(params.id))) throw notFound("run", params.id);
        return eventsPage(params.id, query);
      })
      .get("/api/streams/:id/events", async ({ params, query }) => eventsPage(params.id, query))
      .post("/api/runs/:id/cancel", async ({ params }) => {
        await runs.cancel(params.id);
        return jsonResponse({ ok: true });
      })
      .post("/api/runs/:id/rerun", async ({ params, request }) => {
        const body = await readBody(request, RerunBody, maxBodyBytes, { allowEmpty: true });
        return jsonResponse(await runs.rerun(params.id, { ...body, createdBy: actorOf(request) }), 202);
      })
      .post("/api/runs/:id/fork", async ({ params, request }) => {
        const { at, ...changes } = await readBody(request, ForkBody, maxBodyBytes);
        return jsonResponse(await runs.fork(params.id, { at, changes }, actorOf(request)), 202);
      })
  );
}

const Started = z.object({ runId: z.string(), status: z.literal("queued"), queuePosition: z.number().int() });

/** The run routes, as the OpenAPI document describes them. */
/** A page of stored events (`eventsPage`); values over 64 KB come as previews with a link. */
const EventsPage = z.object({ events: z.array(RunEventSchema), hasMore: z.boolean() });

export const RUNS_ROUTES: readonly ApiRoute[] = [
  route("POST", "/api/workflows/:id/runs", "runs", "Start a run", { body: StartBody, bodyOptional: true, response: Started, status: 202 }),
  route("GET", "/api/runs", "runs", "List runs, newest first: summaries without inputs and outputs", {
    query: ListQuery,
    response: z.object({ runs: z.array(RunRecordSchema.omit({ inputs: true, outputs: true })) }),
  }),
  route("GET", "/api/runs/:id", "runs", "A run with its observations and the workflow as it ran", {
    response: z.object({ run: RunRecordSchema.extend({ queuePosition: z.number().int().optional() }), observations: z.array(ObservationSchema), workflow: WorkflowSchema.optional() }),
  }),
  route("GET", "/api/runs/:id/events", "runs", "A run's stored events, a page at a time", { query: EventsQuery, response: EventsPage }),
  route("GET", "/api/runs/:id/value", "runs", "One value of a run whole (the link of a large value's preview)", { query: ValueQuery, response: z.object({ value: z.unknown() }) }),
  route("GET", "/api/streams/:id/events", "runs", "Any stream's stored events, a page at a time", { query: EventsQuery, response: EventsPage }),
  route("POST", "/api/runs/:id/cancel", "runs", "Cancel a run", { response: OkAnswer }),
  route("POST", "/api/runs/:id/rerun", "runs", "Run a past run again", { body: RerunBody, bodyOptional: true, response: Started, status: 202 }),
  route("POST", "/api/runs/:id/fork", "runs", "Fork a past run at a node: what does not depend on the change comes from the run's record", { body: ForkBody, response: Started, status: 202 }),
];
