import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { WorkflowInput } from "@weft/types";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { TEST_TOKEN } from "../testing/http-call.ts";
import { spawnServer, type ChildServer } from "../testing/child-server.ts";
import { TestWsClient, contiguousFrom, messageType } from "../testing/ws-client.ts";
import { EventsPageSchema, RunAnswerSchema, slowWorkflow, templateWorkflow, waitFor } from "../testing/test-server.ts";
import { StartedRunSchema } from "../testing/answers.ts";
import type { ChildWorker } from "./testing/child-worker.ts";
import { startQueueCluster, type QueueCluster } from "./testing/queue-cluster.ts";

/**
 * Queue mode end to end: real Redis, the shared database, two API processes and two `weft worker`
 * processes, all spawned as the user would run them.
 */
describe("queue mode", () => {
  let cluster: QueueCluster;
  let dataDir: string;
  let apiA: ChildServer;
  let apiB: ChildServer;
  /** The live workers (the cluster's list: a worker killed here is taken out of it). */
  let workers: ChildWorker[];
  let env: Record<string, string>;

  const startRun = async (api: ChildServer, workflowId: string, inputs: Record<string, unknown> = {}) => {
    const res = await api.call("POST", `/api/workflows/${workflowId}/runs`, { inputs });
    expect(res.status).toBe(202);
    return StartedRunSchema.parse(res.body).runId;
  };
  const runStatus = async (api: ChildServer, runId: string) => RunAnswerSchema.parse((await api.call("GET", `/api/runs/${runId}`)).body).run;
  const waitForStatus = (api: ChildServer, runId: string, statuses: string[], timeoutMs = 60_000) =>
    waitFor(
      async () => {
        const run = await runStatus(api, runId);
        return statuses.includes(run.status) ? run : undefined;
      },
      timeoutMs,
      `run ${runId} to be ${statuses.join(" or ")}`,
    );
  const storedEvents = async (api: ChildServer, runId: string) => EventsPageSchema.parse((await api.call("GET", `/api/runs/${runId}/events?after=-1&limit=1000`)).body).events;

  beforeAll(async () => {
    cluster = await startQueueCluster({
      name: "queue",
      apiProcesses: 2,
      workers: 2,
      workerArgs: ["--concurrency", "1"],
      // A 5 s job lock: a killed worker's job is found stalled within seconds, and a busy machine still renews it in time
      // (at 1 s, a loop was cancelled mid-action at load average 24).
      env: { WEFT_WORKER_LOCK_MS: "5000", WEFT_SHUTDOWN_GRACE_MS: "10000" },
    });
    ({ dataDir, env, workers } = cluster);
    [apiA, apiB] = cluster.apis;
    // "slow" is always ended by the test (cancel, kill, shutdown), never awaited: ten minutes, as 30 s ran out under a CPU
    // hog while an API process started beside it, and the run the test meant to find running had completed.
    for (const workflow of [templateWorkflow("notes"), slowWorkflow("slow", 600_000), slowWorkflow("short", 400)] satisfies WorkflowInput[]) {
      expect((await apiA.call("POST", "/api/workflows", { workflow })).status).toBeLessThan(300);
    }
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it("executes runs on both workers; their events reach /ws subscribers of the API that started them and of another API", async () => {
    const wsA = await TestWsClient.connect(apiA.url);
    const wsB = await TestWsClient.connect(apiB.url);
    try {
      // Short delays with one slot per worker: both workers must take some.
      const runIds = await Promise.all(Array.from({ length: 6 }, () => startRun(apiA, "short")));
      for (const id of runIds) {
        wsA.subscribe(id);
        wsB.subscribe(id);
      }
      for (const id of runIds) {
        const seenOnA = await wsA.waitForRunEnd(id, 60_000);
        const seenOnB = await wsB.waitForRunEnd(id, 60_000);
        const stored = await storedEvents(apiA, id);
        expect(stored.at(-1)?.type).toBe("run.completed");
        // What each API pushed is exactly what is stored: every seq once, in order.
        expect(seenOnA.map((e) => e.seq)).toEqual(stored.map((e) => e.seq));
        expect(seenOnB.map((e) => e.seq)).toEqual(stored.map((e) => e.seq));
        expect(contiguousFrom(seenOnB, -1)).toBe(true);
        expect((await runStatus(apiB, id)).status).toBe("completed");
      }
      // On PostgreSQL no process fell back to a SQLite file of its own.
      if (cluster.database.engine === "postgres") expect(existsSync(join(dataDir, "weft.sqlite"))).toBe(false);
      const taken = workers.map((w) => w.runsTaken().filter((id) => runIds.includes(id)).length);
      expect(taken[0] + taken[1]).toBe(6);
      expect(taken[0]).toBeGreaterThan(0);
      expect(taken[1]).toBeGreaterThan(0);
    } finally {
      wsA.close();
      wsB.close();
    }
  });

  it("delivers the outputs a worker computed, and a late subscriber on another API resumes by seq without gaps", async () => {
    const runId = await startRun(apiB, "notes", { topic: "queues" });
    const run = await waitForStatus(apiA, runId, ["completed", "failed"]);
    expect(run.status).toBe("completed");
    expect(run.outputs).toEqual({ text: "Notes on queues" });
    const stored = await storedEvents(apiA, runId);
    const ws = await TestWsClient.connect(apiA.url);
    try {
      ws.subscribe(runId, 1);
      const resumed = await ws.waitForRunEnd(runId);
      expect(resumed.map((e) => e.seq)).toEqual(stored.filter((e) => e.seq > 1).map((e) => e.seq));
    } finally {
      ws.close();
    }
  });

  it("a skill called over MCP runs on a worker and the call answers with its outputs", async () => {
    const client = new Client({ name: "weft-queue-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${apiB.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TEST_TOKEN}` } } }));
    try {
      const result = (await client.callTool({ name: "notes", arguments: { topic: "MCP" } })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ text: "Notes on MCP" });
      const runId = result._meta?.["weft/runId"];
      expect(typeof runId).toBe("string");
      await waitFor(async () => (workers.some((w) => w.runsTaken().includes(String(runId))) ? true : undefined), 60_000, "a worker's log of the run");
    } finally {
      await client.close();
    }
  });

  it("cancelling through either API stops the run on the worker that holds it", async () => {
    const runId = await startRun(apiA, "slow");
    await waitForStatus(apiA, runId, ["running"]);
    const ws = await TestWsClient.connect(apiA.url);
    try {
      ws.subscribe(runId);
      const cancelled = await apiB.call("POST", `/api/runs/${runId}/cancel`);
      expect(cancelled.status).toBeLessThan(300);
      const events = await ws.waitForRunEnd(runId, 60_000);
      expect(events.at(-1)?.type).toBe("run.cancelled");
      const run = await waitForStatus(apiA, runId, ["cancelled", "completed", "failed", "interrupted"], 60_000);
      expect(run.status).toBe("cancelled");
      // Stopped before its ten minutes of delay were up (not within some seconds: a busy machine is slow to pass it on).
      expect((run.finishedAt ?? 0) - (run.startedAt ?? 0)).toBeLessThan(600_000);
    } finally {
      ws.close();
    }
  });

  it("a run cancelled while it waits for a worker never starts", async () => {
    // Both workers busy (one slot each), so the third run waits in Redis.
    const busy = await Promise.all([startRun(apiA, "slow"), startRun(apiA, "slow")]);
    await Promise.all(busy.map((id) => waitForStatus(apiA, id, ["running"])));
    const waiting = await startRun(apiA, "notes", { topic: "never" });
    // API A closes the run itself (no worker took it); API B's subscriber gets that event through the relay.
    const wsB = await TestWsClient.connect(apiB.url);
    try {
      wsB.subscribe(waiting);
      await wsB.waitFor((c) => (c.messages.some((m) => messageType(m) === "subscribed") ? true : undefined), 60_000, "subscribed");
      const res = await apiA.call("POST", `/api/runs/${waiting}/cancel`);
      expect(res.status).toBeLessThan(300);
      const events = await wsB.waitForRunEnd(waiting, 60_000);
      expect(events.map((e) => e.type)).toEqual(["run.cancelled"]);
    } finally {
      wsB.close();
    }
    const run = await waitForStatus(apiA, waiting, ["cancelled", "completed", "failed", "interrupted"]);
    expect(run.status).toBe("cancelled");
    expect(run.startedAt).toBeUndefined();
    for (const id of busy) expect((await apiA.call("POST", `/api/runs/${id}/cancel`)).status).toBeLessThan(300);
    for (const id of busy) expect((await waitForStatus(apiA, id, ["cancelled"])).status).toBe("cancelled");
    expect(workers.flatMap((w) => w.runsTaken())).not.toContain(waiting);
  });

  it("an API process starting while a worker runs a run leaves it running (it is not the API's to interrupt)", async () => {
    const runId = await startRun(apiA, "slow");
    await waitForStatus(apiA, runId, ["running"]);
    const apiC = await spawnServer(dataDir, env);
    try {
      expect((await runStatus(apiC, runId)).status).toBe("running");
      expect((await apiC.call("POST", `/api/runs/${runId}/cancel`)).status).toBeLessThan(300);
      expect((await waitForStatus(apiA, runId, ["cancelled", "interrupted", "completed", "failed"])).status).toBe("cancelled");
    } finally {
      apiC.proc.kill("SIGKILL");
      await apiC.proc.exited;
    }
  });

  it("permission rules saved through one API apply in the other API at once", async () => {
    const Policy = z.object({ policy: z.object({ rules: z.array(z.object({ action: z.string(), tool: z.string() })) }) });
    const rules = async (api: ChildServer) => Policy.parse((await api.call("GET", "/api/settings/permissions")).body).policy.rules;
    expect((await apiA.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules: [{ action: "ask", tool: "shell.exec" }] })).status).toBe(200);
    await waitFor(async () => ((await rules(apiB)).length === 1 ? true : undefined), 5000, "API B to apply the rule saved through A");
    expect(await rules(apiB)).toEqual([{ action: "ask", tool: "shell.exec" }]);
    expect((await apiB.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules: [] })).status).toBe(200);
    await waitFor(async () => ((await rules(apiA)).length === 0 ? true : undefined), 5000, "API A to apply the rules saved through B");
  });

  it("a worker killed with SIGKILL mid-run: its run ends interrupted (found stalled by the other worker), never stuck running", async () => {
    const runId = await startRun(apiA, "slow");
    await waitForStatus(apiA, runId, ["running"]);
    const holder = await waitFor(async () => workers.find((w) => w.runsTaken().includes(runId)), 60_000, "the worker holding the run");
    const survivor = workers.find((w) => w !== holder);
    if (!survivor) throw new Error("expected two workers");
    await cluster.kill(holder);
    const run = await waitForStatus(apiB, runId, ["interrupted", "completed", "failed", "cancelled"], 60_000);
    expect(run.status).toBe("interrupted");
    expect(run.error?.code).toBe("INTERRUPTED");
    expect(survivor.runsTaken()).toContain(runId);
    const events = await storedEvents(apiA, runId);
    expect(contiguousFrom(events, -1)).toBe(true);
    expect(events.at(-1)?.type).toBe("run.cancelled");
    // Queue mode keeps working with one worker left.
    const next = await startRun(apiB, "notes", { topic: "after" });
    expect((await waitForStatus(apiA, next, ["completed", "failed"])).status).toBe("completed");
  });

  it("SIGTERM lets a worker finish its running run, then it exits", async () => {
    const worker = workers[0];
    const runId = await startRun(apiA, "short");
    await waitFor(async () => (worker.runsTaken().includes(runId) ? true : undefined), 60_000, "the worker to take the run");
    worker.proc.kill("SIGTERM");
    expect(await worker.proc.exited).toBe(0);
    const run = await waitForStatus(apiA, runId, ["completed", "interrupted", "failed", "cancelled"]);
    expect(run.status).toBe("completed");
    workers.splice(0, 1);
  });

  it("SIGTERM with a run longer than the grace period: the run ends interrupted and the worker exits", async () => {
    const worker = await cluster.startWorker({ WEFT_SHUTDOWN_GRACE_MS: "300" });
    const runId = await startRun(apiA, "slow");
    await waitFor(async () => (worker.runsTaken().includes(runId) ? true : undefined), 60_000, "the worker to take the run");
    await waitForStatus(apiA, runId, ["running"]);
    worker.proc.kill("SIGTERM");
    // Exits without waiting for the run's ten minutes: the run ends interrupted, not completed.
    expect(await worker.proc.exited).toBe(0);
    const run = await waitForStatus(apiB, runId, ["interrupted", "completed", "failed", "cancelled"]);
    expect(run.status).toBe("interrupted");
    expect(run.error?.code).toBe("INTERRUPTED");
    workers.splice(workers.indexOf(worker), 1);
  });
});
