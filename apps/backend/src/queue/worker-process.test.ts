import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { ChildServer } from "../testing/child-server.ts";
import { TEST_TOKEN, call } from "../testing/http-call.ts";
import { signInWithPassword } from "../testing/users.ts";
import { TestWsClient } from "../testing/ws-client.ts";
import { RunAnswerSchema, slowWorkflow, waitFor } from "../testing/test-server.ts";
import { StartedRunSchema } from "../testing/answers.ts";
import { workerMetricsUrl, type ChildWorker } from "./testing/child-worker.ts";
import { startQueueCluster, type QueueCluster } from "./testing/queue-cluster.ts";
import { parseExposition, sampleValue, type Sample } from "../ops/testing/exposition.ts";

/**
 * A `weft worker` process as deployed: real Redis, PostgreSQL (WEFT_QUEUE_TEST_DB=sqlite: a shared
 * SQLite file), an API process and a worker with WEFT_WORKER_METRICS_PORT. The worker counts the runs
 * it executes; the API, whose /ws client watches the same run through the relay, does not count it a
 * second time. The worker's engine is the API's (`createRunRuntime`): its tool calls name the user.
 */
describe("a worker process", () => {
  let cluster: QueueCluster;
  let dataDir: string;
  let projectDir: string;
  let api: ChildServer;
  let worker: ChildWorker;
  let workerUrl: string;

  beforeAll(async () => {
    cluster = await startQueueCluster({
      name: "worker-process",
      projectDir: true,
      workerArgs: ["--concurrency", "1"],
      env: { WEFT_AUTH_TOKEN: TEST_TOKEN },
      workerEnv: { WEFT_WORKER_METRICS_PORT: "0" },
    });
    ({ api, dataDir } = cluster);
    if (!cluster.projectDir) throw new Error("the cluster came without its project folder");
    projectDir = cluster.projectDir;
    [worker] = cluster.workers;
    workerUrl = await workerMetricsUrl(worker);
    expect((await api.call("POST", "/api/workflows", { workflow: slowWorkflow("short", 1500) })).status).toBe(201);
    const writer = { id: "writer", name: "Writer", nodes: [{ id: "w", type: "fs:write", inputs: { path: "@project/by-eve.txt", content: "hello" } }], edges: [] };
    expect((await api.call("POST", "/api/workflows", { workflow: writer })).status).toBe(201);
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  const scrape = async (url: string): Promise<Sample[]> => {
    const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expect(res.status).toBe(200);
    return parseExposition(await res.text());
  };
  const completed = (samples: Sample[]) => sampleValue(samples, "weft_runs_finished_total", { status: "completed" }) ?? 0;

  it("counts a run it executed in its own /metrics, and the API that relayed its events to a /ws client does not", async () => {
    expect((await fetch(`${workerUrl}/metrics`)).status).toBe(401);
    const workerBefore = await scrape(workerUrl);
    const apiBefore = await scrape(api.url);

    const ws = await TestWsClient.connect(api.url);
    try {
      // Subscribed while the run's 1.5 s delay is under way: its later events reach this API through the relay and its hub.
      const runId = StartedRunSchema.parse((await api.call("POST", "/api/workflows/short/runs", { inputs: {} })).body).runId;
      ws.subscribe(runId);
      const seen = await ws.waitForRunEnd(runId, 60_000);
      expect(seen.at(-1)?.type).toBe("run.completed");
      expect(worker.runsTaken()).toContain(runId);
      expect(RunAnswerSchema.parse((await api.call("GET", `/api/runs/${runId}`)).body).run.status).toBe("completed");
    } finally {
      ws.close();
    }

    const workerAfter = await waitFor(
      async () => {
        const s = await scrape(workerUrl);
        return completed(s) === completed(workerBefore) + 1 ? s : undefined;
      },
      10_000,
      "the worker to count the completed run",
    );
    expect(sampleValue(workerAfter, "weft_node_duration_seconds_count", { node_type: "core:delay", status: "completed" })).toBe(
      (sampleValue(workerBefore, "weft_node_duration_seconds_count", { node_type: "core:delay", status: "completed" }) ?? 0) + 1,
    );
    const apiAfter = await scrape(api.url);
    expect(completed(apiAfter)).toBe(completed(apiBefore));
    expect(sampleValue(apiAfter, "weft_runs_started_total") ?? 0).toBe(sampleValue(apiBefore, "weft_runs_started_total") ?? 0);
  });

  it("names the user who started a run in the audit log of the tool calls it made on the worker", async () => {
    const password = "pw-eve-long-enough";
    const created = await api.call("POST", "/api/users", { username: "eve", role: "editor", password });
    expect(created.status).toBe(201);
    const eveId = z.object({ user: z.object({ id: z.string() }) }).parse(created.body).user.id;
    const session = await signInWithPassword(api.url, "eve", password);
    if (!session) throw new Error("eve could not sign in");
    const started = await call(api.url, "POST", "/api/workflows/writer/runs", { inputs: {} }, session);
    expect(started.status).toBe(202);
    const { runId } = StartedRunSchema.parse(started.body);
    const run = await waitFor(
      async () => {
        const r = RunAnswerSchema.parse((await api.call("GET", `/api/runs/${runId}`)).body).run;
        return ["completed", "failed"].includes(r.status) ? r : undefined;
      },
      20_000,
      "the writer run to end",
    );
    expect(run.status).toBe("completed");
    expect(worker.runsTaken()).toContain(runId);
    expect(readFileSync(join(projectDir, "by-eve.txt"), "utf8")).toBe("hello");
    const records = readFileSync(join(dataDir, "audit", "tools.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => z.object({ status: z.string(), runId: z.string().optional(), userId: z.string().optional(), tool: z.string() }).parse(JSON.parse(line)));
    expect(records.filter((r) => r.runId === runId).map((r) => [r.status, r.tool, r.userId])).toEqual([
      ["started", "fs.write", eveId],
      ["completed", "fs.write", eveId],
    ]);
  });

  it("applies permission rules saved through the API at once, without a restart", async () => {
    const runWriter = async (file: string) => {
      const workflow = { id: `write-${file}`, name: `Write ${file}`, nodes: [{ id: "w", type: "fs:write", inputs: { path: `@project/${file}`, content: file } }], edges: [] };
      expect((await api.call("POST", "/api/workflows", { workflow })).status).toBe(201);
      const { runId } = StartedRunSchema.parse((await api.call("POST", `/api/workflows/${workflow.id}/runs`, { inputs: {} })).body);
      return waitFor(
        async () => {
          const r = RunAnswerSchema.parse((await api.call("GET", `/api/runs/${runId}`)).body).run;
          return ["completed", "failed"].includes(r.status) ? r : undefined;
        },
        20_000,
        `the run writing ${file} to end`,
      );
    };
    const setPolicy = async (rules: unknown[]) => expect((await api.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules })).status).toBe(200);

    await setPolicy([{ action: "deny", tool: "fs.write" }]);
    // The node answers the refusal as its output (the run itself completes); the file is the effect that counts.
    expect((await runWriter("denied.txt")).outputs).toMatchObject({ ok: false, result: { error: { code: "E_PERMISSION_DENIED" } } });
    expect(existsSync(join(projectDir, "denied.txt"))).toBe(false);

    await setPolicy([]);
    expect((await runWriter("allowed.txt")).outputs).toMatchObject({ ok: true });
    expect(readFileSync(join(projectDir, "allowed.txt"), "utf8")).toBe("allowed.txt");
  });

  it("answers /healthz without a credential", async () => {
    const res = await fetch(`${workerUrl}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, database: { engine: cluster.database.engine, reachable: true }, redis: { reachable: true } });
  });

  it("closes the listener when SIGTERM stops the worker", async () => {
    worker.proc.kill("SIGTERM");
    expect(await worker.proc.exited).toBe(0);
    await expect(fetch(`${workerUrl}/healthz`)).rejects.toThrow();
  });
});
