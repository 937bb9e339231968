import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startTestServer, type TestServer } from "../testing/test-server.ts";
import { hookWorkflow, signedHeaders } from "../testing/webhooks.ts";
import { until } from "../testing/until.ts";
import { createTestUser } from "../testing/users.ts";

const Activated = z.object({ active: z.boolean(), secrets: z.array(z.object({ nodeId: z.string(), secret: z.string() })) });
const Runs = z.object({ runs: z.array(z.object({ id: z.string(), workflowId: z.string(), trigger: z.object({ kind: z.string(), nodeId: z.string(), path: z.string().optional() }).optional() })) });

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.stop();
});

async function saveAndActivate(id: string, config: Parameters<typeof hookWorkflow>[1]): Promise<string> {
  expect((await t.call("POST", "/api/workflows", { workflow: hookWorkflow(id, config) })).status).toBe(201);
  const answer = await t.call("PUT", `/api/workflows/${id}/active`, { active: true });
  expect(answer.status).toBe(200);
  const secret = Activated.parse(answer.body).secrets[0]?.secret;
  if (secret === undefined) throw new Error("activation showed no secret");
  return secret;
}

async function runsOf(workflowId: string) {
  return Runs.parse((await t.call("GET", `/api/runs?workflowId=${workflowId}`)).body).runs;
}

/** A hook request as an outside sender makes it: no session, no Weft token. */
function hook(path: string, init: RequestInit): Promise<Response> {
  return fetch(`${t.url}/hooks/${path}`, init);
}

describe("webhooks", () => {
  it("a signed request starts a run that records its trigger, and sees the body, query and method", async () => {
    const secret = await saveAndActivate("signed", { path: "orders/new", response: "wait" });
    const body = JSON.stringify({ name: "Ada" });
    const res = await hook("signed/orders/new?source=shop", { method: "POST", body, headers: { ...signedHeaders(secret, body), cookie: "weft_session=x", "x-extra": "1" } });
    expect(res.status).toBe(200);
    const answer = z.object({ runId: z.string(), status: z.string(), outputs: z.record(z.string(), z.unknown()) }).parse(await res.json());
    expect(answer.outputs).toEqual({ greeting: "Hello Ada", method: "POST" });
    const run = z
      .object({
        run: z.object({ trigger: z.object({ kind: z.string(), nodeId: z.string(), path: z.string() }), createdBy: z.string() }),
        workflow: z.object({ nodes: z.array(z.object({ id: z.string(), pinned: z.record(z.string(), z.unknown()).optional() })) }),
      })
      .parse((await t.call("GET", `/api/runs/${answer.runId}`)).body);
    expect(run.run.trigger).toMatchObject({ kind: "webhook", nodeId: "hook", path: "orders/new" });
    const request = run.workflow.nodes.find((n) => n.id === "hook")?.pinned;
    expect(request).toMatchObject({ body: { name: "Ada" }, query: { source: "shop" }, method: "POST" });
    const headers = z.record(z.string(), z.string()).parse(request?.headers);
    expect(headers["x-extra"]).toBe("1");
    // The proof and the caller's cookies never reach the run.
    for (const name of ["cookie", "x-weft-signature", "x-weft-timestamp", "authorization"]) expect(headers[name]).toBeUndefined();
  });

  it("a wrong signature, an old timestamp, a replayed signature and a missing proof store no run", async () => {
    const secret = await saveAndActivate("guarded", { path: "in" });
    const body = JSON.stringify({ name: "Eve" });
    const wrong = signedHeaders("whsec_not-the-secret", body);
    expect((await hook("guarded/in", { method: "POST", body, headers: wrong })).status).toBe(401);
    const old = signedHeaders(secret, body, Math.floor(Date.now() / 1000) - 600);
    expect((await hook("guarded/in", { method: "POST", body, headers: old })).status).toBe(401);
    expect((await hook("guarded/in", { method: "POST", body, headers: { "content-type": "application/json" } })).status).toBe(401);
    // A body changed under a good signature.
    const good = signedHeaders(secret, body);
    expect((await hook("guarded/in", { method: "POST", body: JSON.stringify({ name: "Mallory" }), headers: good })).status).toBe(401);
    expect(await runsOf("guarded")).toHaveLength(0);
    expect((await hook("guarded/in", { method: "POST", body, headers: good })).status).toBe(202);
    expect((await hook("guarded/in", { method: "POST", body, headers: good })).status).toBe(401);
    expect(await runsOf("guarded")).toHaveLength(1);
  });

  it("requests sent together: copies of one signature start one run and the rest are refused; each other request starts its own, the last fire names one", async () => {
    const secret = await saveAndActivate("together", { path: "in" });
    const body = JSON.stringify({ name: "Ada" });
    const copy = signedHeaders(secret, body);
    const copies = await Promise.all(Array.from({ length: 8 }, () => hook("together/in", { method: "POST", body, headers: copy })));
    expect(copies.map((r) => r.status).sort()).toEqual([202, 401, 401, 401, 401, 401, 401, 401]);
    const others = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const one = JSON.stringify({ name: `n${i}` });
        const res = await hook("together/in", { method: "POST", body: one, headers: signedHeaders(secret, one) });
        expect(res.status).toBe(202);
        return z.object({ runId: z.string() }).parse(await res.json()).runId;
      }),
    );
    const runs = await runsOf("together");
    expect(runs).toHaveLength(13);
    for (const runId of others) expect(runs.map((r) => r.id)).toContain(runId);
    const listed = z
      .object({ triggers: z.array(z.object({ workflowId: z.string(), lastRunId: z.string().optional(), lastFiredAt: z.number().optional() })) })
      .parse((await t.call("GET", "/api/triggers")).body)
      .triggers.find((x) => x.workflowId === "together");
    expect(runs.map((r) => r.id)).toContain(listed?.lastRunId);
    expect(listed?.lastFiredAt).toBeGreaterThan(0);
  });

  it("token hooks take the secret as a bearer token or X-Weft-Token, form and text bodies", async () => {
    const secret = await saveAndActivate("tokened", { path: "form", auth: "token", response: "wait" });
    const form = await hook("tokened/form", { method: "POST", body: "name=Grace&x=1", headers: { authorization: `Bearer ${secret}`, "content-type": "application/x-www-form-urlencoded" } });
    expect(await form.json()).toMatchObject({ outputs: { greeting: "Hello Grace" } });
    const text = await hook("tokened/form", { method: "POST", body: "plain words", headers: { "x-weft-token": secret, "content-type": "text/plain" } });
    expect(await text.json()).toMatchObject({ outputs: { greeting: "Hello nobody" } });
    expect((await hook("tokened/form", { method: "POST", body: "name=Eve", headers: { authorization: `Bearer ${secret}x`, "content-type": "text/plain" } })).status).toBe(401);
    expect(await runsOf("tokened")).toHaveLength(2);
  });

  it("an inactive workflow, a too big body and a wrong method store no run", async () => {
    const secret = await saveAndActivate("limits", { path: "in", maxBodyBytes: 1000 });
    const big = JSON.stringify({ name: "x".repeat(2000) });
    expect((await hook("limits/in", { method: "POST", body: big, headers: signedHeaders(secret, big) })).status).toBe(413);
    const small = JSON.stringify({ name: "y" });
    expect((await hook("limits/in", { method: "PUT", body: small, headers: signedHeaders(secret, small) })).status).toBe(404);
    expect((await t.call("PUT", "/api/workflows/limits/active", { active: false })).status).toBe(200);
    expect((await hook("limits/in", { method: "POST", body: small, headers: signedHeaders(secret, small) })).status).toBe(404);
    expect(await runsOf("limits")).toHaveLength(0);
    // On again: the secret made at the first activation still holds (none is shown again).
    const again = Activated.parse((await t.call("PUT", "/api/workflows/limits/active", { active: true })).body);
    expect(again.secrets).toEqual([]);
    expect((await hook("limits/in", { method: "POST", body: small, headers: signedHeaders(secret, small) })).status).toBe(202);
    expect(await runsOf("limits")).toHaveLength(1);
  });

  it("a workflow that cannot run is not switched on: the answer names the problem, and its hook stays closed", async () => {
    const workflow = hookWorkflow("broken", { path: "in" });
    workflow.nodes.push({ id: "odd", type: "core:no-such-node", position: { x: 0, y: 300 } });
    expect((await t.call("POST", "/api/workflows", { workflow })).status).toBe(201);
    const answer = await t.call("PUT", "/api/workflows/broken/active", { active: true });
    expect(answer.status).toBe(400);
    const error = z
      .object({ error: z.object({ code: z.string(), message: z.string(), details: z.object({ issues: z.array(z.object({ code: z.string(), nodeId: z.string() })) }) }) })
      .parse(answer.body).error;
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.message).toContain("cannot run");
    expect(error.details.issues[0]).toMatchObject({ code: "UNKNOWN_NODE_TYPE", nodeId: "odd" });
    const triggers = z.object({ triggers: z.array(z.object({ workflowId: z.string(), active: z.boolean() })) }).parse((await t.call("GET", "/api/triggers")).body).triggers;
    expect(triggers.find((x) => x.workflowId === "broken")?.active).toBe(false);
    const body = JSON.stringify({ name: "Ada" });
    expect((await hook("broken/in", { method: "POST", body, headers: { "content-type": "application/json", authorization: "Bearer whatever" } })).status).toBe(404);
    expect(await runsOf("broken")).toHaveLength(0);
  });

  it("a rotated secret replaces the old one at once", async () => {
    const old = await saveAndActivate("rotated", { path: "in", auth: "token" });
    const rotated = z.object({ secret: z.string() }).parse((await t.call("POST", "/api/workflows/rotated/triggers/hook/secret")).body).secret;
    expect(rotated).not.toBe(old);
    expect((await hook("rotated/in", { method: "POST", body: "{}", headers: { authorization: `Bearer ${old}`, "content-type": "application/json" } })).status).toBe(401);
    expect((await hook("rotated/in", { method: "POST", body: "{}", headers: { authorization: `Bearer ${rotated}`, "content-type": "application/json" } })).status).toBe(202);
    expect(await runsOf("rotated")).toHaveLength(1);
    // The secret is stored sealed: not in the database file as text.
    const file = await Bun.file(`${t.dataDir}/weft.sqlite`).arrayBuffer();
    const wal = Bun.file(`${t.dataDir}/weft.sqlite-wal`);
    const text = Buffer.from(file).toString("latin1") + ((await wal.exists()) ? Buffer.from(await wal.arrayBuffer()).toString("latin1") : "");
    expect(text.includes(rotated)).toBe(false);
  });

  it("each request uses what is stored now: a save changes the next run (which records the saved version), a rotation or a new path refuses the old at once", async () => {
    const secret = await saveAndActivate("revised", { path: "in", auth: "token", response: "wait" });
    const send = async (path: string, token: string) => {
      const res = await hook(`revised/${path}`, { method: "POST", body: JSON.stringify({ name: "Ada" }), headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } });
      return { status: res.status, answer: z.object({ runId: z.string().optional(), outputs: z.record(z.string(), z.unknown()).optional() }).parse(await res.json()) };
    };
    const versionOf = async (runId: string | undefined) =>
      z.object({ run: z.object({ workflowVersion: z.number().optional() }) }).parse((await t.call("GET", `/api/runs/${runId ?? ""}`)).body).run.workflowVersion;
    const first = await send("in", secret);
    expect(first.answer.outputs).toMatchObject({ greeting: "Hello Ada" });
    expect(await versionOf(first.answer.runId)).toBe(1);

    const saved = hookWorkflow("revised", { path: "in", auth: "token", response: "wait" });
    const edited = { ...saved, nodes: saved.nodes.map((n) => (n.id === "greet" ? { ...n, config: { template: "Hi {{0}}" } } : n)) };
    expect((await t.call("PUT", "/api/workflows/revised", { workflow: edited, baseRevision: 1 })).status).toBe(200);
    const second = await send("in", secret);
    expect(second.answer.outputs).toMatchObject({ greeting: "Hi Ada" });
    expect(await versionOf(second.answer.runId)).toBe(2);

    const rotated = z.object({ secret: z.string() }).parse((await t.call("POST", "/api/workflows/revised/triggers/hook/secret")).body).secret;
    expect((await send("in", secret)).status).toBe(401);
    expect((await send("in", rotated)).status).toBe(200);

    const moved = { ...edited, nodes: edited.nodes.map((n) => (n.id === "hook" ? { ...n, config: { path: "moved", auth: "token", response: "wait" } } : n)) };
    expect((await t.call("PUT", "/api/workflows/revised", { workflow: moved, baseRevision: 2 })).status).toBe(200);
    expect((await send("in", rotated)).status).toBe(404);
    expect((await send("moved", rotated)).status).toBe(200);
    expect(await runsOf("revised")).toHaveLength(4);
  });

  it("past the hook's rate: 429 with Retry-After, and no run for the refused requests", async () => {
    const secret = await saveAndActivate("rated", { path: "in", auth: "token", ratePerMinute: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await hook("rated/in", { method: "POST", body: "{}", headers: { "x-weft-token": secret, "content-type": "application/json" } });
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
    expect(statuses).toEqual([202, 202, 202, 429, 429]);
    expect(await runsOf("rated")).toHaveLength(3);
  });

  it("stream mode sends the run's events as SSE, to its last", async () => {
    const secret = await saveAndActivate("streamed", { path: "in", auth: "token", response: "stream" });
    const res = await hook("streamed/in", { method: "POST", body: JSON.stringify({ name: "Lin" }), headers: { "x-weft-token": secret, "content-type": "application/json" } });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const text = await res.text();
    const types = [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    expect(types[0]).toBe("run.started");
    expect(types.at(-1)).toBe("run.completed");
    expect(text).toContain("Hello Lin");
  });

  it("wait mode answers 202 with the run's id when the run outlasts the timeout", async () => {
    const workflow = hookWorkflow("slowhook", { path: "in", auth: "token", response: "wait", waitTimeoutMs: 200 });
    workflow.nodes.push({ id: "wait", type: "core:delay", inputs: { ms: 3000, value: "x" } });
    expect((await t.call("POST", "/api/workflows", { workflow })).status).toBe(201);
    const secret = Activated.parse((await t.call("PUT", "/api/workflows/slowhook/active", { active: true })).body).secrets[0].secret;
    const res = await hook("slowhook/in", { method: "POST", body: "{}", headers: { "x-weft-token": secret, "content-type": "application/json" } });
    expect(res.status).toBe(202);
    const { runId } = z.object({ runId: z.string() }).parse(await res.json());
    await until("the slow run to finish", async () => ((await t.call("GET", `/api/runs/${runId}`)).body as { run: { status: string } }).run.status === "completed" || undefined);
  });

  it("only editors switch workflows on; a viewer cannot, and the session routes keep their cross-site checks", async () => {
    expect((await t.call("POST", "/api/workflows", { workflow: hookWorkflow("roles", { path: "in" }) })).status).toBe(201);
    const viewer = await createTestUser(t, "hook-viewer", "viewer");
    expect((await viewer.call("PUT", "/api/workflows/roles/active", { active: true })).status).toBe(403);
    const listed = z.object({ triggers: z.array(z.object({ workflowId: z.string(), active: z.boolean() })) }).parse((await t.call("GET", "/api/triggers")).body);
    expect(listed.triggers.find((x) => x.workflowId === "roles")?.active).toBe(false);
    const crossSite = await t.fetch("/api/workflows/roles/active", {
      method: "PUT",
      body: JSON.stringify({ active: true }),
      headers: { origin: "https://evil.example", "content-type": "application/json" },
    });
    expect(crossSite.status).toBe(403);
    const formSite = await t.fetch("/api/workflows/roles/active", { method: "PUT", body: "active=true", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(formSite.status).toBe(415);
    expect(
      z
        .object({ triggers: z.array(z.object({ workflowId: z.string(), active: z.boolean() })) })
        .parse((await t.call("GET", "/api/triggers")).body)
        .triggers.find((x) => x.workflowId === "roles")?.active,
    ).toBe(false);
  });
});

describe("a hook's past run", () => {
  it("opens against the graph it ran, with its request, after a save and after the workflow is deleted and made again", async () => {
    const secret = await saveAndActivate("kept", { path: "in", auth: "token", response: "wait" });
    const send = async (name: string) => {
      const res = await hook("kept/in", { method: "POST", body: JSON.stringify({ name }), headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" } });
      return z.object({ runId: z.string(), outputs: z.record(z.string(), z.unknown()) }).parse(await res.json());
    };
    const Opened = z.object({
      workflow: z.object({
        revision: z.number(),
        nodes: z.array(z.object({ id: z.string(), config: z.record(z.string(), z.unknown()).optional(), pinned: z.record(z.string(), z.unknown()).optional() })),
      }),
    });
    const opened = async (runId: string) => {
      const { workflow } = Opened.parse((await t.call("GET", `/api/runs/${runId}`)).body);
      const node = (id: string) => workflow.nodes.find((n) => n.id === id);
      return { revision: workflow.revision, template: node("greet")?.config?.template, body: node("hook")?.pinned?.body };
    };
    const first = await send("Ada");
    const second = await send("Grace");
    expect(second.outputs).toMatchObject({ greeting: "Hello Grace" });

    const saved = hookWorkflow("kept", { path: "in", auth: "token", response: "wait" });
    const edited = { ...saved, nodes: saved.nodes.map((n) => (n.id === "greet" ? { ...n, config: { template: "Hi {{0}}" } } : n)) };
    expect((await t.call("PUT", "/api/workflows/kept", { workflow: edited, baseRevision: 1 })).status).toBe(200);
    const third = await send("Lin");
    expect(third.outputs).toMatchObject({ greeting: "Hi Lin" });
    expect(await opened(first.runId)).toEqual({ revision: 1, template: "Hello {{0}}", body: { name: "Ada" } });
    expect(await opened(second.runId)).toEqual({ revision: 1, template: "Hello {{0}}", body: { name: "Grace" } });
    expect(await opened(third.runId)).toEqual({ revision: 2, template: "Hi {{0}}", body: { name: "Lin" } });

    // Deleted (its versions go with it) and made again under the same id, whose version 1 is another graph.
    expect((await t.call("DELETE", "/api/workflows/kept")).status).toBe(200);
    const other = { ...saved, nodes: saved.nodes.map((n) => (n.id === "greet" ? { ...n, config: { template: "Yo {{0}}" } } : n)) };
    expect((await t.call("POST", "/api/workflows", { workflow: other })).status).toBe(201);
    expect(await opened(first.runId)).toEqual({ revision: 1, template: "Hello {{0}}", body: { name: "Ada" } });
    expect(await opened(third.runId)).toEqual({ revision: 2, template: "Hi {{0}}", body: { name: "Lin" } });
  });
});

describe("a workflow deleted and made again under the same id", () => {
  it("starts off, and its old secret starts no run", async () => {
    const old = await saveAndActivate("reborn", { path: "in", auth: "token" });
    expect((await t.call("DELETE", "/api/workflows/reborn")).status).toBe(200);
    expect((await t.call("POST", "/api/workflows", { workflow: hookWorkflow("reborn", { path: "in", auth: "token" }) })).status).toBe(201);
    const send = (secret: string) => hook("reborn/in", { method: "POST", body: "{}", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" } });
    expect((await send(old)).status).toBe(404);
    const again = Activated.parse((await t.call("PUT", "/api/workflows/reborn/active", { active: true })).body).secrets[0]?.secret;
    expect(again).toBeDefined();
    expect(again).not.toBe(old);
    expect((await send(old)).status).toBe(401);
    expect(await runsOf("reborn")).toHaveLength(0);
  });
});
