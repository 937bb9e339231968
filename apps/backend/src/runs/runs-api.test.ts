import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { StartedRunSchema, WorkflowAnswerSchema } from "../testing/answers.ts";
import { EventsPageSchema, RunAnswerSchema, slowWorkflow, startTestServer, templateWorkflow, waitFor, waitForRun, type TestServer } from "../testing/test-server.ts";

/** GET /api/runs, as far as these tests read it. */
const RunListSchema = z.object({ runs: z.array(z.object({ id: z.string() })) });
/** GET /api/runs/:id, whatever state the run is in: its status and place in the queue. */
const runState = (body: unknown) => z.object({ run: z.object({ status: z.string(), queuePosition: z.number().int().optional() }) }).parse(body).run;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ runConcurrency: 1 });
  await t.call("POST", "/api/workflows", { workflow: templateWorkflow("notes") });
  await t.call("POST", "/api/workflows", { workflow: slowWorkflow("slow", 30_000) });
});
afterAll(() => t.stop());

async function startRun(workflowId: string, body: unknown = {}) {
  const res = await t.call("POST", `/api/workflows/${workflowId}/runs`, body);
  expect(res.status).toBe(202);
  return res.body as { runId: string; status: string; queuePosition: number };
}

describe("runs API", () => {
  it("runs a workflow with interface inputs and keeps outputs, observations and events", async () => {
    const started = await startRun("notes", { inputs: { topic: "looms" } });
    expect(started.status).toBe("queued");
    const { run, observations } = await waitForRun(t, started.runId);
    expect(run).toMatchObject({ id: started.runId, workflowId: "notes", workflowRevision: 1, status: "completed", inputs: { topic: "looms" }, outputs: { text: "Notes on looms" } });
    expect(run.finishedAt).toBeGreaterThanOrEqual(run.startedAt ?? Infinity);
    expect(observations.map((o) => [o.nodeId, o.status])).toEqual([
      ["topic", "completed"],
      ["fill", "completed"],
      ["out", "completed"],
    ]);
    expect(observations[1].outputs).toEqual({ text: "Notes on looms" });

    const events = EventsPageSchema.parse((await t.call("GET", `/api/runs/${started.runId}/events`)).body);
    expect(events.hasMore).toBe(false);
    expect(events.events.map((e) => e.seq)).toEqual(events.events.map((_, i) => i));
    expect(events.events[0].type).toBe("run.started");
    expect(events.events.at(-1)?.type).toBe("run.completed");
    // Its three nodes complete within their calls: one node.completed each, between the run's first and last events.
    expect(events.events.map((e) => e.type)).toEqual(["run.started", "node.completed", "node.completed", "node.completed", "run.completed"]);
    const tail = EventsPageSchema.parse((await t.call("GET", `/api/runs/${started.runId}/events?after=2&limit=1`)).body);
    expect(tail.events.map((e) => e.seq)).toEqual([3]);
    expect(tail.hasMore).toBe(true);

    const history = RunListSchema.parse((await t.call("GET", "/api/runs?workflowId=notes&limit=5")).body).runs;
    expect(history[0]?.id).toBe(started.runId);
  });

  it("refuses bad run requests with 4xx and creates no run", async () => {
    const before = RunListSchema.parse((await t.call("GET", "/api/runs?limit=500")).body).runs.length;
    const cases: [string, unknown, number, string][] = [
      ["/api/workflows/notes/runs", { inputs: { topic: 42 } }, 400, "VALIDATION_FAILED"],
      ["/api/workflows/notes/runs", { inputs: {} }, 400, "VALIDATION_FAILED"],
      ["/api/workflows/notes/runs", { inputs: { topic: "x", extra: 1 } }, 400, "VALIDATION_FAILED"],
      ["/api/workflows/notes/runs", { inputs: { topic: "x" }, rerunFrom: "nope" }, 400, "VALIDATION_FAILED"],
      ["/api/workflows/notes/runs", { input: { topic: "x" } }, 400, "VALIDATION_FAILED"],
      ["/api/workflows/notes/runs", "[", 400, "INVALID_JSON"],
      ["/api/workflows/nope/runs", { inputs: {} }, 404, "NOT_FOUND"],
      ["/api/workflows/notes/runs", { workflow: { ...templateWorkflow("notes"), nodes: [{ id: "a", type: "core:nope" }] } }, 400, "VALIDATION_FAILED"],
      ["/api/workflows/notes/runs", { workflow: templateWorkflow("other"), inputs: { topic: "x" } }, 400, "VALIDATION_FAILED"],
    ];
    for (const [path, body, status, code] of cases) {
      const res = await t.call("POST", path, body);
      expect({ path, body, status: res.status, code: ErrorBodySchema.safeParse(res.body).data?.error.code }).toEqual({ path, body, status, code });
    }
    const missingInput = await t.call("POST", "/api/workflows/notes/runs", { inputs: {} });
    expect(ErrorBodySchema.parse(missingInput.body).error.message).toContain('missing required input "topic"');
    expect(RunListSchema.parse((await t.call("GET", "/api/runs?limit=500")).body).runs.length).toBe(before);
    expect((await t.call("GET", "/api/runs?limit=0")).status).toBe(400);
    expect((await t.call("GET", "/api/runs?status=sleeping")).status).toBe(400);
    expect((await t.call("GET", "/api/runs/nope")).status).toBe(404);
    expect((await t.call("GET", "/api/runs/nope/events")).status).toBe(404);
    expect((await t.call("GET", "/api/runs/nope/events?after=x")).status).toBe(404);
    expect((await t.call("POST", "/api/runs/nope/cancel")).status).toBe(404);
  });

  it("runs an unsaved draft of the workflow", async () => {
    const draft = templateWorkflow("notes", "Draft about {{0}}");
    const started = await startRun("notes", { workflow: draft, inputs: { topic: "yarn" } });
    const { run } = await waitForRun(t, started.runId);
    expect(run.outputs).toEqual({ text: "Draft about yarn" });
    expect(WorkflowAnswerSchema.parse((await t.call("GET", "/api/workflows/notes")).body).workflow.nodes[1]?.config?.template).toBe("Notes on {{0}}");
  });

  it("runs a workflow never saved as a draft: the run and its snapshot are stored, no workflow is", async () => {
    const started = await startRun("never-saved", { workflow: templateWorkflow("never-saved", "Unsaved {{0}}"), inputs: { topic: "wool" } });
    const { run, workflow } = await waitForRun(t, started.runId);
    expect(run.outputs).toEqual({ text: "Unsaved wool" });
    expect(workflow).toMatchObject({ id: "never-saved" });
    expect((await t.call("GET", "/api/workflows/never-saved")).status).toBe(404);
    const listed = z.object({ workflows: z.array(z.object({ id: z.string() })) }).parse((await t.call("GET", "/api/workflows")).body).workflows;
    expect(listed.map((w) => w.id)).not.toContain("never-saved");
    expect(RunListSchema.parse((await t.call("GET", "/api/runs?workflowId=never-saved")).body).runs.map((r) => r.id)).toEqual([started.runId]);
  });

  it("answers GET /api/runs/:id with the workflow exactly as the run ran it, also after the workflow changed", async () => {
    await t.call("POST", "/api/workflows", { workflow: templateWorkflow("snap") });
    const started = await startRun("snap", { inputs: { topic: "weft" } });
    await waitForRun(t, started.runId);
    const stored = WorkflowAnswerSchema.parse((await t.call("GET", "/api/workflows/snap")).body).workflow;
    const edited = templateWorkflow("snap", "Edited {{0}}");
    expect((await t.call("PUT", "/api/workflows/snap", { workflow: { ...edited, revision: stored.revision }, baseRevision: stored.revision })).status).toBe(200);

    const { workflow, run } = RunAnswerSchema.parse((await t.call("GET", `/api/runs/${started.runId}`)).body);
    expect(run.workflowRevision).toBe(1);
    expect(workflow).toMatchObject({ id: "snap", revision: 1 });
    expect(workflow.nodes.find((n) => n.id === "fill")?.config.template).toBe("Notes on {{0}}");
    const draftRun = await startRun("snap", { workflow: templateWorkflow("snap", "Draft {{0}}"), inputs: { topic: "x" } });
    expect((await waitForRun(t, draftRun.runId)).workflow.nodes.find((n) => n.id === "fill")?.config.template).toBe("Draft {{0}}");
  });

  it("queues runs beyond the concurrency limit, shows their place and cancels them", async () => {
    const slow = await startRun("slow");
    expect(slow.queuePosition).toBe(0);
    await waitFor(async () => (runState((await t.call("GET", `/api/runs/${slow.runId}`)).body).status === "running" ? true : undefined));
    const second = await startRun("notes", { inputs: { topic: "a" } });
    const third = await startRun("notes", { inputs: { topic: "b" } });
    expect([second.queuePosition, third.queuePosition]).toEqual([1, 2]);
    expect(runState((await t.call("GET", `/api/runs/${third.runId}`)).body)).toMatchObject({ status: "queued", queuePosition: 2 });

    expect((await t.call("POST", `/api/runs/${second.runId}/cancel`)).body).toEqual({ ok: true });
    expect(runState((await t.call("GET", `/api/runs/${second.runId}`)).body).status).toBe("cancelled");
    expect(runState((await t.call("GET", `/api/runs/${third.runId}`)).body).queuePosition).toBe(1);

    expect((await t.call("POST", `/api/runs/${slow.runId}/cancel`)).body).toEqual({ ok: true });
    const cancelled = await waitForRun(t, slow.runId);
    expect(cancelled.run.status).toBe("cancelled");
    expect(cancelled.run.durationMs).toBeLessThan(10_000);
    const done = await waitForRun(t, third.runId);
    expect(done.run.outputs).toEqual({ text: "Notes on b" });
    const finished = await t.call("POST", `/api/runs/${third.runId}/cancel`);
    expect(finished.status).toBe(409);
    const { events } = EventsPageSchema.parse((await t.call("GET", `/api/runs/${second.runId}/events`)).body);
    expect(events.map((e) => e.type)).toEqual(["run.cancelled"]);
  });

  it("re-runs from a node with the upstream outputs taken from the cache", async () => {
    const first = await startRun("notes", { inputs: { topic: "dye" } });
    await waitForRun(t, first.runId);
    const again = await startRun("notes", { inputs: { topic: "dye" }, rerunFrom: "fill" });
    const { run, observations } = await waitForRun(t, again.runId);
    expect(run).toMatchObject({ status: "completed", rerunFrom: "fill", outputs: { text: "Notes on dye" } });
    const byNode = Object.fromEntries(observations.map((o) => [o.nodeId, o.cached]));
    expect(byNode).toEqual({ topic: true, fill: false, out: false });
  });

  it("gives runs the sandboxed file tools, writing inside @project/ only", async () => {
    const write = (path: string) => ({
      id: "writer",
      name: "Writer",
      nodes: [{ id: "w", type: "fs:write", inputs: { path, content: "woven" } }],
      edges: [],
    });
    await t.call("POST", "/api/workflows", { workflow: write("@project/notes/out.txt") });
    const ok = await startRun("writer");
    const { observations } = await waitForRun(t, ok.runId);
    expect(observations[0].outputs).toMatchObject({ ok: true, bytesWritten: 5 });
    expect(readFileSync(join(t.server.projectDir, "notes", "out.txt"), "utf8")).toBe("woven");

    const escape = await startRun("writer", { workflow: write("@project/../../escaped.txt") });
    const refused = await waitForRun(t, escape.runId);
    expect(refused.observations[0].outputs).toMatchObject({ result: { error: { code: "E_SANDBOX_VIOLATION" } } });
  });

  it("repeats a past run with POST /api/runs/:id/rerun", async () => {
    const first = await startRun("notes", { inputs: { topic: "silk" } });
    await waitForRun(t, first.runId);
    const res = await t.call("POST", `/api/runs/${first.runId}/rerun`);
    expect(res.status).toBe(202);
    const { run } = await waitForRun(t, StartedRunSchema.parse(res.body).runId);
    expect(run).toMatchObject({ sourceRunId: first.runId, inputs: { topic: "silk" }, outputs: { text: "Notes on silk" } });
  });
});
