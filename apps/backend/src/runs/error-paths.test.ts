import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { WorkflowInput } from "@weft/types";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { slowWorkflow, startTestServer, waitFor, waitForRun, type RunAnswer, type TestServer } from "../testing/test-server.ts";
import { createTestUser } from "../testing/users.ts";

/** Errors as a path: a node's `$error` output (policy `route`) and a workflow's error workflow, on a real server. */

const PUBLIC_URL = "https://weft.example.test/";
const RunListSchema = z.object({ runs: z.array(z.object({ id: z.string(), status: z.string(), trigger: z.object({ kind: z.string(), runId: z.string().optional() }).optional() })) });

let t: TestServer;
beforeAll(async () => {
  // One run at a time: a failed run's error workflow is decided before the next run starts.
  t = await startTestServer({ runConcurrency: 1, publicUrl: PUBLIC_URL });
});
afterAll(() => t.stop());

const input = (id: string, name: string, portType = "string") => ({ id, type: "core:workflow-input", config: { name, portType, required: false } });
const output = (id: string, name: string, portType = "any") => ({ id, type: "core:workflow-output", config: { name, portType } });
const edge = (source: string, sourceHandle: string, target: string, targetHandle = "value") => ({
  id: `${source}.${sourceHandle}->${target}.${targetHandle}`,
  source,
  sourceHandle,
  target,
  targetHandle,
});

/** Parses its `text` input; `parse` fails on bad JSON with the given policy. */
function parser(id: string, onError: "continue" | "route", extra: Partial<WorkflowInput> = {}): WorkflowInput {
  const routed = onError === "route";
  return {
    id,
    name: `Parser ${id}`,
    nodes: [
      input("text", "text"),
      { id: "parse", type: "core:json-parse", label: "Parse the order", policy: { onError, retries: 1, retryBackoffMs: 1 } },
      output("parsed", "parsed"),
      ...(routed ? [{ id: "code", type: "core:get-path", inputs: { path: "code" } }, output("code-out", "code"), output("problem", "problem", "json")] : []),
    ],
    edges: [
      edge("text", "value", "parse", "text"),
      edge("parse", "value", "parsed"),
      ...(routed ? [edge("parse", "$error", "code", "value"), edge("code", "value", "code-out"), edge("parse", "$error", "problem")] : []),
    ],
    ...extra,
  };
}

/** An error workflow that hands on what it was given as its outputs. */
const handler: WorkflowInput = {
  id: "on-failure",
  name: "On failure",
  nodes: [
    input("i-run", "runId"),
    input("i-wf", "workflowId"),
    input("i-name", "workflowName"),
    input("i-node", "failedNodeId", "any"),
    input("i-title", "failedNodeTitle", "any"),
    input("i-error", "error", "json"),
    input("i-inputs", "inputs", "json"),
    input("i-link", "link"),
    output("o-run", "runId"),
    output("o-wf", "workflowId"),
    output("o-name", "workflowName"),
    output("o-node", "failedNodeId"),
    output("o-title", "failedNodeTitle"),
    output("o-error", "error"),
    output("o-inputs", "inputs"),
    output("o-link", "link"),
  ],
  edges: [
    edge("i-run", "value", "o-run"),
    edge("i-wf", "value", "o-wf"),
    edge("i-name", "value", "o-name"),
    edge("i-node", "value", "o-node"),
    edge("i-title", "value", "o-title"),
    edge("i-error", "value", "o-error"),
    edge("i-inputs", "value", "o-inputs"),
    edge("i-link", "value", "o-link"),
  ],
};

async function save(workflow: WorkflowInput): Promise<void> {
  const res = await t.call("POST", "/api/workflows", { workflow });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

async function runToEnd(workflowId: string, inputs: Record<string, unknown>, call = t.call): Promise<RunAnswer> {
  const res = await call("POST", `/api/workflows/${workflowId}/runs`, { inputs });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return waitForRun(t, z.object({ runId: z.string() }).parse(res.body).runId);
}

/** The run the error workflow `workflowId` made for the failed run `failedRunId`, once it has ended. */
async function errorRunOf(workflowId: string, failedRunId: string): Promise<RunAnswer> {
  const found = await waitFor(
    async () => {
      const runs = RunListSchema.parse((await t.call("GET", `/api/runs?workflowId=${workflowId}&limit=100`)).body).runs;
      return runs.find((r) => r.trigger?.kind === "error" && r.trigger.runId === failedRunId);
    },
    60_000,
    `the error run of ${failedRunId}`,
  );
  return waitForRun(t, found.id);
}

describe("a node's error output", () => {
  it("carries the error on as data: the run completes, the error's dependents run, the normal output's are skipped", async () => {
    await save(parser("routes", "route"));
    const { run, observations } = await runToEnd("routes", { text: "{ not json" });
    expect(run.status).toBe("completed");
    const parse = observations.find((o) => o.nodeId === "parse");
    expect(parse).toMatchObject({ status: "failed", handled: true, attempts: 2 });
    const problem = { code: parse?.error?.code, message: parse?.error?.message, nodeId: "parse", nodeTitle: "Parse the order", attempt: 2 };
    expect(parse?.outputs).toEqual({ $error: problem });
    // Downstream of `$error`: the error reached them as data.
    expect(run.outputs).toEqual({ problem, code: parse?.error?.code });
    expect(observations.find((o) => o.nodeId === "code")).toMatchObject({ status: "completed", outputs: { value: parse?.error?.code } });
    // Downstream of the normal output: skipped, saying why.
    const skipped = observations.find((o) => o.nodeId === "parsed");
    expect(skipped?.status).toBe("skipped");
    expect(skipped?.skipReason).toContain("parse");
    // The live event says it too.
    const events = z.object({ events: z.array(z.record(z.string(), z.unknown())) }).parse((await t.call("GET", `/api/runs/${run.id}/events`)).body).events;
    expect(events.find((e) => e.type === "node.failed" && e.nodeId === "parse")).toMatchObject({ handled: true, outputs: { $error: problem } });
  });

  it("runs the normal path when nothing fails (the error path's nodes are skipped)", async () => {
    const { run, observations } = await runToEnd("routes", { text: '{"a":1}' });
    expect(run.status).toBe("completed");
    expect(run.outputs).toEqual({ parsed: { a: 1 } });
    expect(observations.find((o) => o.nodeId === "problem")?.status).toBe("skipped");
  });

  it("refuses an `$error` edge from a node that does not route its errors, saying how to fix it", async () => {
    const bad = parser("bad-edge", "continue");
    bad.edges = [...(bad.edges ?? []), edge("parse", "$error", "parsed")];
    const res = await t.call("POST", "/api/workflows/validate", { workflow: bad });
    const issues = z.object({ ok: z.boolean(), issues: z.array(z.object({ message: z.string(), hint: z.string().optional() })) }).parse(res.body);
    expect(issues.ok).toBe(false);
    const issue = issues.issues.find((i) => i.message.includes("$error"));
    expect(issue?.hint).toContain('set policy.onError to "route" on node "parse"');
    const started = await t.call("POST", "/api/workflows/bad-edge/runs", { workflow: bad, inputs: { text: "{" } });
    expect(started.status).toBe(400);
  });
});

describe("a workflow's error workflow", () => {
  beforeAll(async () => {
    await save(handler);
  });

  it("refuses a setting that names no saved workflow, or the workflow itself", async () => {
    const missing = await t.call("POST", "/api/workflows", { workflow: parser("names-missing", "continue", { errorWorkflowId: "nope" }) });
    expect(missing.status).toBe(400);
    expect(ErrorBodySchema.parse(missing.body).error.message).toContain('errorWorkflowId names workflow "nope", which is not saved');
    const self = await t.call("POST", "/api/workflows", { workflow: parser("names-self", "continue", { errorWorkflowId: "names-self" }) });
    expect(self.status).toBe(400);
    expect(ErrorBodySchema.parse(self.body).error.message).toContain("names the workflow itself");
    expect((await t.call("GET", "/api/workflows/names-missing")).status).toBe(404);
  });

  it("runs with the failed run's ids, error, redacted inputs and link, as its creator, recording what started it", async () => {
    await save(parser("fails", "continue", { errorWorkflowId: "on-failure" }));
    const failed = (await runToEnd("fails", { text: "{ broken" })).run;
    expect(failed.status).toBe("failed");
    const { run: errorRun } = await errorRunOf("on-failure", failed.id);
    expect(errorRun.status).toBe("completed");
    expect(errorRun.trigger).toMatchObject({ kind: "error", runId: failed.id });
    expect(errorRun.createdBy).toBe(failed.createdBy);
    expect(errorRun.outputs).toEqual({
      runId: failed.id,
      workflowId: "fails",
      workflowName: "Parser fails",
      failedNodeId: "parse",
      failedNodeTitle: "Parse the order",
      error: { code: failed.error?.code, message: failed.error?.message },
      inputs: { text: "{ broken" },
      link: `https://weft.example.test/#/workflows/fails/runs/${failed.id}`,
    });
  });

  it("starts nothing more when the error workflow itself fails (no loop)", async () => {
    // A handler that fails, and names an error workflow of its own.
    await save(
      parser("broken-handler", "continue", {
        errorWorkflowId: "on-failure",
        nodes: [input("text", "text"), { id: "parse", type: "core:json-parse", inputs: { text: "{" } }, output("parsed", "parsed")],
        edges: [edge("parse", "value", "parsed")],
      }),
    );
    await save(parser("fails-twice", "continue", { errorWorkflowId: "broken-handler" }));
    const failed = (await runToEnd("fails-twice", { text: "{" })).run;
    const { run: handlerRun } = await errorRunOf("broken-handler", failed.id);
    expect(handlerRun.status).toBe("failed");
    // A later failure's error run ends after the failed handler's decision (one run at a time here).
    const later = (await runToEnd("fails", { text: "{" })).run;
    await errorRunOf("on-failure", later.id);
    const runs = RunListSchema.parse((await t.call("GET", "/api/runs?limit=500")).body).runs;
    expect(runs.filter((r) => r.trigger?.runId === handlerRun.id)).toEqual([]);
  });

  it("does not start for a cancelled run, nor for a creator who may no longer run workflows", async () => {
    const edna = await createTestUser(t, "edna", "editor");
    const failed = (await runToEnd("fails", { text: "{" }, edna.call)).run;
    expect(failed.createdBy).toBe(edna.id);
    expect((await errorRunOf("on-failure", failed.id)).run.createdBy).toBe(edna.id);
    // A slow run holds the one run slot; Edna's failing run waits behind it while she becomes a viewer.
    await save({ ...slowWorkflow("slow-with-handler", 120_000), errorWorkflowId: "on-failure" });
    const slow = z.object({ runId: z.string() }).parse((await t.call("POST", "/api/workflows/slow-with-handler/runs", { inputs: {} })).body).runId;
    const queued = z.object({ runId: z.string() }).parse((await edna.call("POST", "/api/workflows/fails/runs", { inputs: { text: "{" } })).body).runId;
    const demoted = await t.call("PUT", `/api/users/${edna.id}`, { role: "viewer" });
    expect(demoted.status, JSON.stringify(demoted.body)).toBe(200);
    await waitFor(async () => (z.object({ run: z.object({ status: z.string() }) }).parse((await t.call("GET", `/api/runs/${slow}`)).body).run.status === "running" ? true : undefined));
    expect((await t.call("POST", `/api/runs/${slow}/cancel`)).status).toBe(200);
    expect((await waitForRun(t, slow)).run.status).toBe("cancelled");
    expect((await waitForRun(t, queued)).run.status).toBe("failed");
    // A later failure's error run ends after both decisions (one run at a time here).
    const later = (await runToEnd("fails", { text: "{" })).run;
    await errorRunOf("on-failure", later.id);
    const runs = RunListSchema.parse((await t.call("GET", "/api/runs?limit=500")).body).runs;
    expect(runs.filter((r) => r.trigger?.runId === queued || r.trigger?.runId === slow)).toEqual([]);
  });
});
