import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Validator } from "@seriousme/openapi-schema-validator";
import openapiTS, { astToString } from "openapi-typescript";
import createClient from "openapi-fetch";
import { startTestServer, templateWorkflow, waitForRun, type TestServer } from "../testing/test-server.ts";
import { API_ROUTES } from "../api-routes.ts";
import { UNDESCRIBED } from "./openapi-document.ts";

type Operation = { [UNDESCRIBED]?: boolean; requestBody?: unknown };
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

let t: TestServer;
let document: Document;
beforeAll(async () => {
  t = await startTestServer();
  const res = await t.call("GET", "/api/openapi.json");
  expect(res.status).toBe(200);
  // The document is checked below, field by field, against what the API serves.
  document = res.body as Document;
});
afterAll(() => t.stop());

const operations = () => Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })));

describe("GET /api/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    expect(document.openapi).toBe("3.1.0");
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("describes every /api/ route the server answers, and lists no route it does not", () => {
    const undescribed = operations()
      .filter(({ op }) => op[UNDESCRIBED])
      .map(({ key }) => key);
    expect(undescribed, "routes with no entry in any domain's …_ROUTES (api-routes.ts)").toEqual([]);
    const listed = new Set(operations().map(({ key }) => key));
    const stale = API_ROUTES.map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`).filter((key) => !listed.has(key));
    expect(stale, "entries in api-routes.ts the server does not answer").toEqual([]);
  });

  it("carries the request body schemas the handlers validate with", () => {
    const start = document.paths["/api/workflows/{id}/runs"].post;
    expect(start.requestBody).toMatchObject({ content: { "application/json": { schema: { type: "object", properties: { inputs: { type: "object" } }, additionalProperties: false } } } });
  });

  it("describes /mcp, /ws and /metrics: their methods, media types and the 401 with its WWW-Authenticate", () => {
    const paths = document.paths as Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }> }>>;
    expect(Object.keys(paths["/mcp"]).sort()).toEqual(["delete", "get", "post"]);
    expect(Object.keys(paths["/mcp"].post.responses["200"].content ?? {})).toEqual(["text/event-stream", "application/json"]);
    expect(paths["/mcp"].post.responses["401"].headers).toHaveProperty("WWW-Authenticate");
    expect(paths["/mcp"].get.responses).toHaveProperty("405");
    expect(paths["/ws"].get.responses).toHaveProperty("101");
    expect(Object.keys(paths["/metrics"].get.responses["200"].content ?? {})).toEqual(["text/plain; version=0.0.4; charset=utf-8"]);
  });

  it("needs a credential like the rest of the API", async () => {
    expect((await fetch(`${t.url}/api/openapi.json`)).status).toBe(401);
    expect((await fetch(`${t.url}/api/reference`)).status).toBe(401);
  });
});

describe("a client generated from the document", () => {
  it("generates types for it and calls a route with a path parameter and a body", async () => {
    const types = astToString(await openapiTS(document as unknown as Parameters<typeof openapiTS>[0]));
    expect(types).toContain('"/api/workflows/{id}/runs"');
    expect((await t.call("POST", "/api/workflows", { workflow: templateWorkflow("notes") })).status).toBe(201);
    const client = createClient({ baseUrl: t.url, headers: { authorization: `Bearer ${t.server.accessToken}` } });
    const { data, response } = await client.POST("/api/workflows/{id}/runs" as never, { params: { path: { id: "notes" } }, body: { inputs: { topic: "clients" } } } as never);
    expect(response.status).toBe(202);
    const run = await waitForRun(t, z.object({ runId: z.string() }).parse(data).runId);
    expect(run.run.outputs).toEqual({ text: "Notes on clients" });
  });

  it("works with the client's defaults where no body is sent: DELETE, and POST …/duplicate without a body", async () => {
    expect((await t.call("POST", "/api/workflows", { workflow: templateWorkflow("generated") })).status).toBe(201);
    const client = createClient({ baseUrl: t.url, headers: { authorization: `Bearer ${t.server.accessToken}` } });
    const copied = await client.POST("/api/workflows/{id}/duplicate" as never, { params: { path: { id: "generated" } } } as never);
    expect(copied.response.status).toBe(201);
    expect((await t.call("GET", "/api/workflows/generated-copy")).status).toBe(200);
    const deleted = await client.DELETE("/api/workflows/{id}" as never, { params: { path: { id: "generated-copy" } } } as never);
    expect(deleted.response.status).toBe(200);
    expect((await t.call("GET", "/api/workflows/generated-copy")).status).toBe(404);
  });
});

/** Operations whose 2xx answers document no schema (`{}`): a generated client types them `unknown`. */
function untypedSuccesses(): string[] {
  return operations()
    .filter(({ op }) => {
      const successes = Object.entries((op as { responses: Record<string, { content?: Record<string, { schema?: object }> }> }).responses).filter(([status]) => /^2/.test(status));
      return successes.some(([, r]) => r.content !== undefined && Object.values(r.content).every((c) => Object.keys(c.schema ?? {}).length === 0));
    })
    .map(({ key }) => key);
}

describe("success answers in the document", () => {
  it("are typed for every operation on workflows, runs, agents and scenes", () => {
    const untyped = untypedSuccesses();
    expect(untyped.filter((key) => /^\w+ \/api\/(workflows|runs|streams|agents|scenes)(\/|$)/.test(key) && !/\/api\/scenes\/\{id\}\//.test(key))).toEqual([]);
  });

  it("are what the server answers: every documented GET the test can name, through a generated client, parsed with its schema", async () => {
    expect((await t.call("POST", "/api/workflows", { workflow: templateWorkflow("schema-check") })).status).toBe(201);
    const started = z.object({ runId: z.string() }).parse((await t.call("POST", "/api/workflows/schema-check/runs", { inputs: { topic: "schemas" } })).body);
    await waitForRun(t, started.runId);
    const ids: Record<string, string> = { workflows: "schema-check", runs: started.runId, streams: started.runId };
    const client = createClient({ baseUrl: t.url, headers: { authorization: `Bearer ${t.server.accessToken}` } });
    const checked: string[] = [];
    const wrong: string[] = [];
    for (const route of API_ROUTES) {
      if (route.method !== "GET" || !route.response || route.mediaType !== undefined) continue;
      const segment = /^\/api\/([\w-]+)/.exec(route.path)?.[1] ?? "";
      const params = [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => name);
      // Routes under another id (an agent's, a scene's) need a document of that kind first: not named here.
      if (params.some((name) => name !== "id") || (params.length > 0 && ids[segment] === undefined)) continue;
      if (route.query && Object.keys(route.query.shape).some((key) => !route.query?.shape[key].safeParse(undefined).success)) continue;
      const path = route.path.replace(/:(\w+)/g, "{$1}");
      const { data, response } = await client.GET(path as never, { params: { path: { id: ids[segment] } } } as never);
      checked.push(path);
      const parsed = route.response.safeParse(data);
      if (response.status !== 200 || !parsed.success) wrong.push(`${path}: ${response.status} ${parsed.error?.message ?? ""}`);
    }
    expect(wrong).toEqual([]);
    expect(checked).toEqual(expect.arrayContaining(["/api/workflows", "/api/workflows/{id}", "/api/runs", "/api/runs/{id}", "/api/runs/{id}/events", "/api/agents", "/api/scenes"]));
  });
});

describe("GET /api/reference", () => {
  it("is a page with every operation and no script, so the CSP's script-src 'self' holds", async () => {
    const res = await t.fetch("/api/reference");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    const html = await res.text();
    expect(html).not.toMatch(/<script/i);
    for (const { key } of operations()) expect(html).toContain(`<code>${key.split(" ")[1]}</code>`);
  });
});
