import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import openapiTS, { astToString } from "openapi-typescript";
import createClient from "openapi-fetch";
import { startTestServer, templateWorkflow, tempDir, waitFor, waitForRun, type TestServer } from "../testing/test-server.ts";

/**
 * A client generated from the served document, with its defaults, as a user of the API would make one: every documented
 * GET and a create/update/delete cycle, each answer validated (ajv) against the schema the document gives its status and
 * media type. A schema that does not say what the server answers (a missing or extra field, a wrong type) fails here.
 */

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));

interface Response {
  $ref?: string;
  content?: Record<string, { schema?: unknown }>;
}
interface Operation {
  parameters?: { name: string; in: string; required?: boolean }[];
  responses: Record<string, Response>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { responses: Record<string, Response> };
}

const Id = z.object({ id: z.string() });
const pointer = (...segments: string[]) => segments.map((s) => "/" + encodeURIComponent(s.replace(/~/g, "~0").replace(/\//g, "~1"))).join("");

/** Validates an answer against what the document says that operation answers with that status and media type. */
class DocumentCheck {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: Document) {
    this.ajv.addSchema(document, "openapi.json");
  }

  /** Why the answer does not fit the document, or undefined when it does. */
  problem(method: string, path: string, status: number, contentType: string | null, text: string): string | undefined {
    const op = this.document.paths[path]?.[method];
    if (!op) return `${method.toUpperCase()} ${path} is not in the document`;
    const key = String(status) in op.responses ? String(status) : "default";
    let response = op.responses[key];
    if (!response) return `status ${status} is not documented`;
    let at = pointer("paths", path, method, "responses", key);
    if (response.$ref) {
      const name = response.$ref.replace("#/components/responses/", "");
      response = this.document.components.responses[name];
      at = pointer("components", "responses", name);
    }
    if (!response?.content) return text === "" ? undefined : `status ${status} documents no body, but one came: ${text.slice(0, 200)}`;
    const media = Object.keys(response.content).find((m) => m.split(";")[0].trim() === (contentType ?? "").split(";")[0].trim());
    if (media === undefined) return `status ${status} came as ${contentType}, documented: ${Object.keys(response.content).join(", ")}`;
    const ref = `openapi.json#${at}${pointer("content", media, "schema")}`;
    let validate = this.compiled.get(ref);
    if (!validate) this.compiled.set(ref, (validate = this.ajv.compile({ $ref: ref })));
    const body: unknown = media.startsWith("application/json") ? JSON.parse(text) : text;
    return validate(body) ? undefined : `${status}: ${this.ajv.errorsText(validate.errors, { separator: "; " })}`;
  }
}

let t: TestServer;
let document: Document;
let check: DocumentCheck;
let client: ReturnType<typeof createClient>;
const wrong: string[] = [];

/** Calls one operation through the generated client and records any way its answer differs from the document. */
async function call(method: "GET" | "POST" | "PUT" | "DELETE", path: string, params: { path?: Record<string, string>; query?: Record<string, string> } = {}, body?: unknown) {
  const init = { params, parseAs: "text", ...(body !== undefined ? { body } : {}) };
  const { data, error, response } = await client.request(method.toLowerCase() as never, path as never, init as never);
  // openapi-fetch hands a refusal's body back parsed when it is JSON.
  const text = typeof data === "string" ? data : typeof error === "string" ? error : error === undefined ? "" : JSON.stringify(error);
  const problem = check.problem(method.toLowerCase(), path, response.status, response.headers.get("content-type"), text);
  if (problem) wrong.push(`${method} ${path}: ${problem}`);
  return { status: response.status, body: response.headers.get("content-type")?.startsWith("application/json") ? (JSON.parse(text) as unknown) : text };
}

beforeAll(async () => {
  t = await startTestServer({ examplesDir: EXAMPLES });
  // The client works as a script would: with a personal API token, not the install's access token.
  const token = z.object({ secret: z.string() }).parse((await t.call("POST", "/api/auth/tokens", { name: "generated client" })).body).secret;
  const served = await fetch(`${t.url}/api/openapi.json`, { headers: { authorization: `Bearer ${token}` } });
  expect(served.status).toBe(200);
  document = (await served.json()) as Document;
  check = new DocumentCheck(document);
  client = createClient({ baseUrl: t.url, headers: { authorization: `Bearer ${token}` } });
}, 120_000);
afterAll(() => t.stop());

describe("a client generated from GET /api/openapi.json", () => {
  it("has a type for every operation's success answer (none is `unknown`)", async () => {
    const types = astToString(await openapiTS(document as unknown as Parameters<typeof openapiTS>[0]));
    writeFileSync(join(tempDir("weft-client-"), "weft-api.d.ts"), types);
    for (const path of Object.keys(document.paths)) expect(types).toContain(`"${path}": {`);
    expect(types.match(/"application\/json": unknown;/g) ?? []).toEqual([]);
  }, 120_000);

  it("answers every documented GET as the document says, for objects of every kind the test made first", async () => {
    // One of each kind, so every {id} names something real.
    const workflowId = "client-notes";
    expect((await call("POST", "/api/workflows", {}, { workflow: templateWorkflow(workflowId) })).status).toBe(201);
    const saved = z.object({ workflow: z.object({ revision: z.number() }) }).parse((await call("GET", "/api/workflows/{id}", { path: { id: workflowId } })).body);
    expect(
      (await call("PUT", "/api/workflows/{id}", { path: { id: workflowId } }, { workflow: templateWorkflow(workflowId, "Notes about {{0}}"), baseRevision: saved.workflow.revision })).status,
    ).toBe(200);
    const runId = z.object({ runId: z.string() }).parse((await call("POST", "/api/workflows/{id}/runs", { path: { id: workflowId } }, { inputs: { topic: "clients" } })).body).runId;
    await waitForRun(t, runId);

    const agentId = "text-helper";
    const conversationId = z
      .object({ conversationId: z.string() })
      .parse((await call("POST", "/api/agents/{id}/messages", { path: { id: agentId } }, { message: "Please uppercase this text: hi" })).body).conversationId;
    await waitFor(
      async () => {
        const res = await t.call("GET", `/api/conversations/${conversationId}`);
        return z.object({ agent: z.object({ running: z.boolean() }).optional() }).parse(res.body).agent?.running === false ? true : undefined;
      },
      60_000,
      "the agent's turn",
    );

    const sceneId = "notice-board";
    const profileId = z.object({ profiles: z.array(Id) }).parse((await call("GET", "/api/llm-profiles")).body).profiles[0].id;
    const userId = z.object({ principal: z.object({ userId: z.string() }) }).parse((await call("GET", "/api/auth/session")).body).principal.userId;

    const builder = await call("POST", "/api/builder/sessions", {}, { target: { type: "workflow", workflowId: "text-pipeline" }, message: "Add a node that uppercases the output" });
    expect(builder.status).toBe(201);
    const builderId = z.object({ session: Id }).parse(builder.body).session.id;

    const gated = { id: "client-gate", name: "Gate", nodes: [{ id: "gate", type: "core:approval", config: { question: "Ship it?" }, inputs: { data: "v1" } }], edges: [] };
    expect((await call("POST", "/api/workflows", {}, { workflow: gated })).status).toBe(201);
    const gatedRun = z.object({ runId: z.string() }).parse((await call("POST", "/api/workflows/{id}/runs", { path: { id: "client-gate" } }, {})).body).runId;
    const approvalId = await waitFor(
      async () => {
        const res = await t.call("GET", `/api/approvals?runId=${gatedRun}`);
        return z.object({ approvals: z.array(Id) }).parse(res.body).approvals[0]?.id;
      },
      60_000,
      "the approval",
    );

    const suite = await call(
      "POST",
      "/api/evals/suites",
      {},
      {
        name: "client",
        target: { kind: "workflow", id: workflowId },
        cases: [{ id: "c1", name: "one", inputs: { topic: "x" }, assertions: [{ kind: "equals", output: "text", expected: "Notes about x" }] }],
      },
    );
    expect(suite.status).toBe(201);
    const suiteId = z.object({ suite: Id }).parse(suite.body).suite.id;
    const evalRun = await call("POST", "/api/evals/suites/{id}/runs", { path: { id: suiteId } }, {});
    expect(evalRun.status).toBe(202);
    const evalRunId = z.object({ run: Id }).parse(evalRun.body).run.id;

    // A scene suite over the example scene, and its run (still running or done: either way it is read).
    const sceneCase = { id: "a", name: "a", script: [{ to: "scribe", text: "Note: hello" }], invariants: [{ kind: "never", event: "board.cleared" }] };
    const sceneSuite = await call("POST", "/api/evals/scene-suites", {}, { name: "client", sceneId, cases: [sceneCase] });
    expect(sceneSuite.status).toBe(201);
    const sceneSuiteId = z.object({ suite: Id }).parse(sceneSuite.body).suite.id;
    const sceneRun = await call("POST", "/api/evals/scene-suites/{id}/runs", { path: { id: sceneSuiteId } }, {});
    expect(sceneRun.status).toBe(202);
    const sceneRunId = z.object({ run: Id }).parse(sceneRun.body).run.id;

    const idUnder: [RegExp, string][] = [
      [/^\/api\/workflows\//, workflowId],
      [/^\/api\/(runs|streams)\//, runId],
      [/^\/(api\/agents|v1\/models|a2a)\//, agentId],
      [/^\/api\/scenes\//, sceneId],
      [/^\/api\/conversations\//, conversationId],
      [/^\/api\/llm-profiles\//, profileId],
      [/^\/api\/builder\/sessions\//, builderId],
      [/^\/api\/users\//, userId],
      [/^\/api\/approvals\//, approvalId],
      [/^\/api\/evals\/suites\//, suiteId],
      [/^\/api\/evals\/runs\//, evalRunId],
      [/^\/api\/evals\/scene-suites\//, sceneSuiteId],
      [/^\/api\/evals\/scene-runs\//, sceneRunId],
    ];
    const named: Record<string, string> = { n: "1", to: "2", csId: "latest" };
    // The only required query: a run's value names its side and key.
    const queries: Record<string, Record<string, string>> = { "/api/runs/{id}/value": { side: "outputs", key: "text" } };

    const called: string[] = [];
    const statuses: string[] = [];
    for (const [path, methods] of Object.entries(document.paths)) {
      if (!methods.get || path === "/ws") continue;
      const params: Record<string, string> = {};
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
        const id = name === "id" || name === "agentId" ? idUnder.find(([pattern]) => pattern.test(path))?.[1] : named[name];
        expect(id, `an id for {${name}} in ${path}`).toBeDefined();
        params[name] = id ?? "";
      }
      // Versions: workflows have two (the update above); agents and scenes one, so their diff is of version 1 to itself.
      if (params.to !== undefined && !path.startsWith("/api/workflows/")) params.to = "1";
      const res = await call("GET", path, { path: params, ...(queries[path] ? { query: queries[path] } : {}) });
      called.push(path);
      if (res.status >= 400 && !(path === "/mcp" && res.status === 405)) statuses.push(`${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    }
    expect(wrong, "answers that differ from the document").toEqual([]);
    expect(statuses, "GETs that did not succeed").toEqual([]);
    const documentedGets = Object.entries(document.paths).filter(([path, methods]) => methods.get && path !== "/ws");
    expect(called).toHaveLength(documentedGets.length);
  }, 300_000);

  it("creates, updates and deletes a workflow and an LLM profile, and its refusals are the documented ones", async () => {
    const before = wrong.length;
    const created = await call("POST", "/api/workflows", {}, { workflow: templateWorkflow("client-cycle") });
    expect(created.status).toBe(201);
    const { revision } = z.object({ workflow: z.object({ revision: z.number() }) }).parse(created.body).workflow;
    expect((await call("PUT", "/api/workflows/{id}", { path: { id: "client-cycle" } }, { workflow: templateWorkflow("client-cycle", "{{0}}!"), baseRevision: revision })).status).toBe(200);
    // A stale revision: the documented 409 with its code.
    const stale = await call("PUT", "/api/workflows/{id}", { path: { id: "client-cycle" } }, { workflow: templateWorkflow("client-cycle"), baseRevision: revision });
    expect(stale).toMatchObject({ status: 409, body: { error: { code: "REVISION_CONFLICT" } } });
    // The client's default DELETE: no body, no Content-Type.
    expect((await call("DELETE", "/api/workflows/{id}", { path: { id: "client-cycle" } })).status).toBe(200);
    expect(await call("GET", "/api/workflows/{id}", { path: { id: "client-cycle" } })).toMatchObject({ status: 404, body: { error: { code: "NOT_FOUND" } } });
    expect((await call("POST", "/api/workflows", {}, { workflow: { id: "bad" } })).status).toBe(400);

    const profile = await call("POST", "/api/llm-profiles", {}, { name: "Client", baseUrl: "http://127.0.0.1:9/v1", model: "m", apiKey: "sk-client-test" });
    expect(profile.status).toBe(201);
    const profileId = z.object({ profile: Id }).parse(profile.body).profile.id;
    expect((await call("PUT", "/api/llm-profiles/{id}", { path: { id: profileId } }, { model: "m2" })).status).toBe(200);
    expect((await call("POST", "/api/llm-profiles/{id}/test", { path: { id: profileId } })).status).toBe(200);
    expect((await call("DELETE", "/api/llm-profiles/{id}", { path: { id: profileId } })).status).toBe(200);
    expect((await call("GET", "/api/llm-profiles/{id}", { path: { id: profileId } })).status).toBe(404);
    expect(wrong.slice(before), "answers that differ from the document").toEqual([]);
  }, 120_000);
});
