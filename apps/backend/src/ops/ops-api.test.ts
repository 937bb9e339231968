import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startTestServer, templateWorkflow, waitForRun, type TestServer } from "../testing/test-server.ts";
import { StartedRunSchema } from "../testing/answers.ts";
import { parseExposition, sampleValue, type Sample } from "./testing/exposition.ts";

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ demoLlm: false });
  await t.call("POST", "/api/workflows", { workflow: templateWorkflow("notes") });
  await t.call("POST", "/api/workflows", {
    workflow: {
      id: "broken",
      name: "Broken",
      nodes: [{ id: "bad", type: "core:json-parse", inputs: { text: "{not json" } }],
      edges: [],
    },
  });
});
afterAll(() => t.stop());

async function scrape(): Promise<Sample[]> {
  const res = await t.fetch("/metrics");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain");
  return parseExposition(await res.text());
}

async function runToEnd(workflowId: string, inputs: Record<string, unknown>): Promise<string> {
  const started = StartedRunSchema.parse((await t.call("POST", `/api/workflows/${workflowId}/runs`, { inputs })).body);
  return (await waitForRun(t, started.runId)).run.status;
}

const HealthSchema = z
  .object({
    ok: z.boolean(),
    version: z.string(),
    database: z.object({ engine: z.enum(["sqlite", "postgres"]), reachable: z.boolean() }).strict(),
    queue: z.object({ mode: z.literal("embedded") }).strict(),
  })
  .strict();

describe("GET /metrics", () => {
  it("counts finished runs by status and observes run and node durations from the run events", async () => {
    const before = await scrape();
    const completedBefore = sampleValue(before, "weft_runs_finished_total", { status: "completed" }) ?? -1;
    const failedBefore = sampleValue(before, "weft_runs_finished_total", { status: "failed" }) ?? -1;
    expect(completedBefore).toBe(0);
    expect(failedBefore).toBe(0);

    expect(await runToEnd("notes", { topic: "wool" })).toBe("completed");
    expect(await runToEnd("notes", { topic: "silk" })).toBe("completed");
    expect(await runToEnd("broken", {})).toBe("failed");

    const after = await scrape();
    expect(sampleValue(after, "weft_runs_started_total")).toBe(3);
    expect(sampleValue(after, "weft_runs_finished_total", { status: "completed" })).toBe(2);
    expect(sampleValue(after, "weft_runs_finished_total", { status: "failed" })).toBe(1);
    expect(sampleValue(after, "weft_run_duration_seconds_count", { status: "completed" })).toBe(2);
    expect(sampleValue(after, "weft_run_duration_seconds_count", { status: "failed" })).toBe(1);
    // Both runs executed the template node (the second with a new input, so not from the cache).
    expect(sampleValue(after, "weft_node_duration_seconds_count", { node_type: "core:text-template", status: "completed" })).toBe(2);
    expect(sampleValue(after, "weft_node_duration_seconds_count", { node_type: "core:json-parse", status: "failed" })).toBe(1);
    expect(sampleValue(after, "weft_node_duration_seconds_bucket", { node_type: "core:text-template", status: "completed", le: "+Inf" })).toBe(2);
    // The embedded mode: nothing waits or runs once the runs ended, and no worker processes exist.
    expect(sampleValue(after, "weft_queue_depth")).toBe(0);
    expect(sampleValue(after, "weft_runs_active")).toBe(0);
    expect(sampleValue(after, "weft_workers_active")).toBe(0);
    expect(sampleValue(after, "weft_queue_mode")).toBe(0);
    expect(sampleValue(after, "weft_process_resident_memory_bytes")).toBeGreaterThan(0);
  });

  it("counts a run that paused for an approval and resumed once as started, and its pause as paused", async () => {
    const gated = {
      id: "gated",
      name: "Gated",
      nodes: [
        { id: "gate", type: "core:approval", config: { question: "Go on?", timeoutSeconds: 1, defaultDecision: "approved" }, inputs: { data: "x" } },
        { id: "out", type: "core:workflow-output", config: { name: "decided", portType: "json" } },
      ],
      edges: [{ id: "e1", source: "gate", sourceHandle: "approved", target: "out", targetHandle: "value" }],
    };
    expect((await t.call("POST", "/api/workflows", { workflow: gated })).status).toBe(201);
    const before = await scrape();
    const started = StartedRunSchema.parse((await t.call("POST", "/api/workflows/gated/runs", { inputs: {} })).body);
    // Waits for the timeout's default decision and the resumed execution's end.
    const answer = await waitForRun(t, started.runId);
    expect(answer.run.status).toBe("completed");
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) => (sampleValue(after, name, labels) ?? 0) - (sampleValue(before, name, labels) ?? 0);
    expect(delta("weft_runs_paused_total")).toBe(1);
    expect(delta("weft_runs_started_total")).toBe(1);
    expect(delta("weft_runs_finished_total", { status: "completed" })).toBe(1);
  });

  it("refuses a scrape without a credential, and with a wrong one", async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: "Bearer not-the-token" }];
    for (const headers of attempts) {
      const res = await fetch(`${t.url}/metrics`, { headers });
      expect(res.status).toBe(401);
      const body = z.object({ error: z.object({ code: z.string() }) }).parse(await res.json());
      expect(body.error.code).toBe("UNAUTHENTICATED");
    }
  });
});

describe("GET /api/health", () => {
  it("answers without a credential: version, the database engine and that it answers, the embedded queue, nothing else", async () => {
    const res = await fetch(`${t.url}/api/health`);
    expect(res.status).toBe(200);
    const health = HealthSchema.parse(await res.json());
    expect(health).toMatchObject({ ok: true, database: { engine: "sqlite", reachable: true }, queue: { mode: "embedded" } });
    expect(health.version).toMatch(/^\d+\.\d+\.\d+/);
  });
});
