import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startTestServer, templateWorkflow, waitForRun, type TestServer } from "../testing/test-server.ts";
import { createTestUser, signInWithPassword, type TestUser } from "../testing/users.ts";
import { call } from "../testing/http-call.ts";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { TestWsClient } from "../testing/ws-client.ts";
import { StartedRunSchema } from "../testing/answers.ts";
import { ROUTE_RULES, RouteRules } from "./route-rules.ts";

let t: TestServer;
let editor: TestUser;
let viewer: TestUser;
beforeAll(async () => {
  t = await startTestServer();
  editor = await createTestUser(t, "edna", "editor");
  viewer = await createTestUser(t, "vic", "viewer");
  expect((await t.call("POST", "/api/workflows", { workflow: templateWorkflow("notes") })).status).toBe(201);
});
afterAll(() => t.stop());

const rules = new RouteRules();
const key = (method: string, path: string) => `${method} ${path}`;

/** Rules for routes another helper registers later (they are listed ahead so the route is never open). */
const NOT_YET_REGISTERED = new Set(["GET /metrics"]);

describe("the rule table", () => {
  it("has a rule for every route the real server registers", () => {
    const routes = t.server.routes();
    expect(routes.length).toBeGreaterThan(80);
    const missing = routes.filter((r) => rules.ruleFor(r.method, r.path) === undefined).map((r) => key(r.method, r.path));
    expect(missing, "routes with no rule in auth/route-rules.ts: add one with the least role that may call it").toEqual([]);
  });

  it("names no route the server does not register", () => {
    const registered = new Set(t.server.routes().map((r) => key(r.method, r.path)));
    const stale = ROUTE_RULES.map((r) => key(r.method, r.path)).filter((k) => !registered.has(k) && !NOT_YET_REGISTERED.has(k));
    expect(stale).toEqual([]);
  });

  it("applies each rule to a request for its route (parameters filled in), and owner to one no rule names", () => {
    for (const r of ROUTE_RULES) {
      if (r.path === "/*") continue;
      const path = r.path.replace(/:\w+/g, "x1");
      const method = r.method === "ALL" || r.method === "WS" ? "GET" : r.method;
      expect(rules.accessFor(method, path, r.method === "WS"), key(r.method, r.path)).toBe(r.access);
    }
    expect(rules.accessFor("GET", "/workflows/anything", false)).toBe("public");
    expect(rules.accessFor("GET", "/api/no-such-route", false)).toBe("owner");
    expect(rules.accessFor("PATCH", "/api/workflows/x1", false)).toBe("owner");
    expect(rules.accessFor("HEAD", "/api/health", false)).toBe("public");
  });
});

const Listed = z.object({ workflows: z.array(z.object({ id: z.string() })) });
const Runs = z.object({ runs: z.array(z.object({ id: z.string(), createdBy: z.string().optional() })) });
const RunAnswer = z.object({ run: z.object({ createdBy: z.string().optional() }) });
const Users = z.object({ users: z.array(z.object({ id: z.string(), username: z.string(), role: z.string() })) });

async function refusal(res: { status: number; body: unknown }, status = 403) {
  expect(res.status).toBe(status);
  return ErrorBodySchema.parse(res.body).error;
}

describe("a viewer", () => {
  it("reads workflows and runs, and watches a run's events over /ws", async () => {
    expect((await viewer.call("GET", "/api/workflows")).status).toBe(200);
    const started = await t.call("POST", "/api/workflows/notes/runs", { inputs: { topic: "bees" } });
    const { runId } = StartedRunSchema.parse(started.body);
    await waitForRun(t, runId);
    expect((await viewer.call("GET", `/api/runs/${runId}`)).status).toBe(200);
    const ws = await TestWsClient.connect(t.url, viewer.session);
    try {
      ws.send({ type: "subscribe", streamId: runId, after: -1 });
      const events = await ws.waitForRunEnd(runId);
      expect(events.at(-1)?.type).toBe("run.completed");
    } finally {
      ws.close();
    }
  });

  it("is refused further subscriptions on an open socket once their session ends", async () => {
    const started = StartedRunSchema.parse((await t.call("POST", "/api/workflows/notes/runs", { inputs: { topic: "ants" } })).body);
    await waitForRun(t, started.runId);
    const session = await signInWithPassword(t.url, viewer.username, viewer.password);
    const ws = await TestWsClient.connect(t.url, session);
    try {
      ws.send({ type: "subscribe", streamId: started.runId, after: -1 });
      expect((await ws.waitForRunEnd(started.runId)).length).toBeGreaterThan(0);
      expect((await call(t.url, "DELETE", "/api/auth/session", undefined, session)).status).toBe(200);
      ws.send({ type: "subscribe", streamId: "another-stream", after: -1 });
      await ws.waitFor((c) => (c.closed ? true : undefined), 5000, "the socket to close");
      expect(ws.closeCode).toBe(4401);
      expect(JSON.stringify(ws.messages.at(-1))).toContain("UNAUTHENTICATED");
    } finally {
      ws.close();
    }
  });

  it("gets 403 on a write of each domain, and nothing is created or changed", async () => {
    const before = Listed.parse((await t.call("GET", "/api/workflows")).body).workflows.map((w) => w.id);
    const runsBefore = Runs.parse((await t.call("GET", "/api/runs")).body).runs.length;
    const error = await refusal(await viewer.call("POST", "/api/workflows", { workflow: templateWorkflow("by-viewer") }));
    expect(error.code).toBe("FORBIDDEN");
    expect(error.message).toMatch(/^Only editors and owners can create workflows\. You \(vic\) are a viewer/);
    expect(error.details).toMatchObject({ required: "editor", role: "viewer", route: "POST /api/workflows" });
    await refusal(await viewer.call("DELETE", "/api/workflows/notes"));
    await refusal(await viewer.call("POST", "/api/workflows/notes/runs", { inputs: { topic: "wasps" } }));
    await refusal(await viewer.call("POST", "/api/agents", { id: "by-viewer", name: "V", deliberationWorkflowId: "notes" }));
    await refusal(await viewer.call("POST", "/api/scenes", { id: "by-viewer", name: "V", agents: [] }));
    await refusal(await viewer.call("POST", "/api/llm-profiles", { name: "by-viewer", baseUrl: "http://127.0.0.1:1/v1", model: "m" }));
    await refusal(await viewer.call("POST", "/api/users", { username: "by-viewer", role: "owner", password: "long-enough-pw" }));
    const builderBefore = (await t.call("GET", "/api/builder/sessions")).body;
    const permissionsBefore = (await t.call("GET", "/api/settings/permissions")).body;
    await refusal(await viewer.call("POST", "/api/builder/sessions", { target: { type: "workflow", id: "notes" } }));
    await refusal(await viewer.call("POST", "/api/agents/helper/messages", { content: "hello" }));
    await refusal(await viewer.call("POST", "/api/scenes/room/start", {}));
    await refusal(await viewer.call("PUT", "/api/settings/permissions", { defaultAction: "deny", rules: [] }));
    await refusal(await viewer.call("POST", "/api/credentials", { name: "by-viewer", kind: "bearer", secret: "s".repeat(16) }));
    // The same with the viewer's personal token: it carries the viewer's role, no more.
    await refusal(await t.call("POST", "/api/workflows", { workflow: templateWorkflow("by-viewer-token") }, viewer.bearer));

    expect(Listed.parse((await t.call("GET", "/api/workflows")).body).workflows.map((w) => w.id)).toEqual(before);
    expect(Runs.parse((await t.call("GET", "/api/runs")).body).runs).toHaveLength(runsBefore);
    expect((await t.call("GET", "/api/agents/by-viewer")).status).toBe(404);
    expect((await t.call("GET", "/api/scenes/by-viewer")).status).toBe(404);
    expect(JSON.stringify((await t.call("GET", "/api/llm-profiles")).body)).not.toContain("by-viewer");
    expect(Users.parse((await t.call("GET", "/api/users")).body).users.map((u) => u.username)).not.toContain("by-viewer");
    expect((await t.call("GET", "/api/builder/sessions")).body).toEqual(builderBefore);
    expect((await t.call("GET", "/api/settings/permissions")).body).toEqual(permissionsBefore);
    expect(JSON.stringify((await t.call("GET", "/api/credentials")).body)).not.toContain("by-viewer");
  });
});

describe("an editor", () => {
  it("changes and runs workflows (the check above can pass)", async () => {
    expect((await editor.call("POST", "/api/workflows", { workflow: templateWorkflow("by-editor") })).status).toBe(201);
    const started = await editor.call("POST", "/api/workflows/by-editor/runs", { inputs: { topic: "moths" } });
    expect(started.status).toBe(202);
    const { runId } = StartedRunSchema.parse(started.body);
    await waitForRun(t, runId);
    // The run names who started it; a rerun names who asked for it.
    expect(RunAnswer.parse((await t.call("GET", `/api/runs/${runId}`)).body).run.createdBy).toBe(editor.id);
    const again = StartedRunSchema.parse((await t.call("POST", `/api/runs/${runId}/rerun`, {})).body).runId;
    expect(RunAnswer.parse((await t.call("GET", `/api/runs/${again}`)).body).run.createdBy).toBe("owner");
    expect((await t.call("POST", "/api/workflows", { workflow: templateWorkflow("by-editor-token") }, editor.bearer)).status).toBe(201);
  });

  it("gets 403 on owner-only routes, and nothing changes", async () => {
    const permissions = (await t.call("GET", "/api/settings/permissions")).body;
    const profiles = (await t.call("GET", "/api/llm-profiles")).body;
    const credentials = (await t.call("GET", "/api/credentials")).body;
    const mcp = (await t.call("GET", "/api/settings/mcp")).body;
    const users = (await t.call("GET", "/api/users")).body;

    expect((await refusal(await editor.call("PUT", "/api/settings/permissions", { defaultAction: "deny", rules: [] }))).message).toMatch(
      /^Only an owner can change the permission settings\. You \(edna\) are an editor/,
    );
    await refusal(await editor.call("POST", "/api/llm-profiles", { name: "by-editor", baseUrl: "http://127.0.0.1:1/v1", model: "m" }));
    await refusal(await editor.call("POST", "/api/credentials", { name: "by-editor", kind: "bearer", secret: "s".repeat(16) }));
    await refusal(await editor.call("PUT", "/api/settings/mcp", { mcpServers: { evil: { command: "sh" } } }));
    await refusal(await editor.call("GET", "/api/users"));
    await refusal(await editor.call("POST", "/api/users", { username: "by-editor", role: "owner", password: "long-enough-pw" }));
    await refusal(await editor.call("PUT", `/api/users/${editor.id}`, { role: "owner" }));
    await refusal(await editor.call("DELETE", `/api/users/${viewer.id}`));

    expect((await t.call("GET", "/api/settings/permissions")).body).toEqual(permissions);
    expect((await t.call("GET", "/api/llm-profiles")).body).toEqual(profiles);
    expect((await t.call("GET", "/api/credentials")).body).toEqual(credentials);
    expect((await t.call("GET", "/api/settings/mcp")).body).toEqual(mcp);
    expect((await t.call("GET", "/api/users")).body).toEqual(users);
    expect((await editor.call("GET", "/api/auth/session")).body).toMatchObject({ principal: { role: "editor" } });

    // The owner's same request passes: the refusals above were the role's.
    expect((await t.call("PUT", "/api/settings/permissions", { defaultAction: "deny", rules: [] })).status).toBe(200);
    expect((await t.call("PUT", "/api/settings/permissions", z.object({ policy: z.unknown() }).parse(permissions).policy)).status).toBe(200);
  });
});

describe("unknown routes", () => {
  it("answer 401 signed out, 403 below owner, 404 to an owner", async () => {
    expect((await fetch(`${t.url}/api/no-such-route`)).status).toBe(401);
    expect((await viewer.call("GET", "/api/no-such-route")).status).toBe(403);
    expect((await t.call("GET", "/api/no-such-route")).status).toBe(404);
  });
});
