import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ChildServer } from "../testing/child-server.ts";
import { hookWorkflow, signedHeaders } from "../testing/webhooks.ts";
import { startQueueCluster, type QueueCluster } from "../queue/testing/queue-cluster.ts";

const Activated = z.object({ secrets: z.array(z.object({ nodeId: z.string(), secret: z.string() })) });
const Runs = z.object({ runs: z.array(z.object({ id: z.string() })) });

/** Webhooks in queue mode: real Redis and PostgreSQL, two API processes, a `weft worker` executing the runs. */
describe("webhooks in queue mode", () => {
  let cluster: QueueCluster;
  let apiA: ChildServer;
  let apiB: ChildServer;

  beforeAll(async () => {
    cluster = await startQueueCluster({ name: "queue-hooks", apiProcesses: 2, workerArgs: ["--concurrency", "2"], env: { WEFT_WORKER_LOCK_MS: "5000" } });
    [apiA, apiB] = cluster.apis as [ChildServer, ChildServer];
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it("a signed request to one API process runs on the worker and answers its output; the same request sent to the other process stores no run", async () => {
    expect((await apiA.call("POST", "/api/workflows", { workflow: hookWorkflow("qhook", { path: "in", response: "wait", waitTimeoutMs: 60_000 }) })).status).toBe(201);
    const secret = Activated.parse((await apiA.call("PUT", "/api/workflows/qhook/active", { active: true })).body).secrets[0].secret;
    const body = JSON.stringify({ name: "Queue" });
    const headers = signedHeaders(secret, body);
    const first = await fetch(`${apiA.url}/hooks/qhook/in`, { method: "POST", body, headers });
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ status: "completed", outputs: { greeting: "Hello Queue" } });
    const replay = await fetch(`${apiB.url}/hooks/qhook/in`, { method: "POST", body, headers });
    expect(replay.status).toBe(401);
    expect(Runs.parse((await apiB.call("GET", "/api/runs?workflowId=qhook")).body).runs).toHaveLength(1);
    // The other process takes a request signed anew, and its run executes on the worker too.
    const again = await fetch(`${apiB.url}/hooks/qhook/in`, { method: "POST", body, headers: signedHeaders(secret, body, Math.floor(Date.now() / 1000) + 1) });
    expect(await again.json()).toMatchObject({ status: "completed", outputs: { greeting: "Hello Queue" } });
  });

  it("a save or a switch-off through one API process holds at once for the hook on the other, which served it before", async () => {
    expect((await apiA.call("POST", "/api/workflows", { workflow: hookWorkflow("qkept", { path: "in", auth: "token", response: "wait", waitTimeoutMs: 60_000 }) })).status).toBe(201);
    const secret = Activated.parse((await apiA.call("PUT", "/api/workflows/qkept/active", { active: true })).body).secrets[0].secret;
    const send = (api: ChildServer) =>
      fetch(`${api.url}/hooks/qkept/in`, { method: "POST", body: JSON.stringify({ name: "Kept" }), headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" } });
    expect(await (await send(apiB)).json()).toMatchObject({ outputs: { greeting: "Hello Kept" } });
    const saved = hookWorkflow("qkept", { path: "in", auth: "token", response: "wait", waitTimeoutMs: 60_000 });
    const edited = { ...saved, nodes: saved.nodes.map((n) => (n.id === "greet" ? { ...n, config: { template: "Hi {{0}}" } } : n)) };
    expect((await apiA.call("PUT", "/api/workflows/qkept", { workflow: edited, baseRevision: 1 })).status).toBe(200);
    expect(await (await send(apiB)).json()).toMatchObject({ outputs: { greeting: "Hi Kept" } });
    expect((await apiA.call("PUT", "/api/workflows/qkept/active", { active: false })).status).toBe(200);
    expect((await send(apiB)).status).toBe(404);
    expect(Runs.parse((await apiB.call("GET", "/api/runs?workflowId=qkept")).body).runs).toHaveLength(2);
  });
});
