import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { isLargeValue, LargeValueSchema, WorkflowSchema, type WorkflowInput } from "@weft/types";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { EventsPageSchema, startTestServer, waitForRun, type TestServer } from "../testing/test-server.ts";
import { TestWsClient } from "../testing/ws-client.ts";

const MB = 1024 * 1024;

/** One code:javascript node whose result is `code`'s value, wired to the workflow's output "result". */
function codeWorkflow(id: string, code: string): WorkflowInput {
  return {
    id,
    name: id,
    nodes: [
      { id: "code", type: "code:javascript", inputs: { code, memoryMb: 512, timeoutMs: 30_000 } },
      { id: "out", type: "core:workflow-output", config: { name: "result", portType: "any" } },
    ],
    edges: [{ id: "e1", source: "code", sourceHandle: "result", target: "out", targetHandle: "value" }],
  };
}

/** The database's bytes on disk: the main file and its write-ahead log. */
function databaseBytes(dataDir: string): number {
  return ["weft.sqlite", "weft.sqlite-wal"].reduce((sum, f) => {
    try {
      return sum + statSync(join(dataDir, f)).size;
    } catch {
      return sum;
    }
  }, 0);
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

async function run(workflow: WorkflowInput) {
  expect((await t.call("POST", "/api/workflows", { workflow })).status).toBe(201);
  const started = await t.call("POST", `/api/workflows/${workflow.id}/runs`, {});
  expect(started.status).toBe(202);
  return waitForRun(t, z.object({ runId: z.string() }).parse(started.body).runId, 120_000);
}

describe("bounded outputs (issue 31, attack 4)", () => {
  // 24 MB, three times the cap: 100 MB took the sandbox past its 30 s limit on a loaded machine (CODE_TIMEOUT).
  it("a node returning 24 MB fails with OUTPUT_TOO_LARGE; the database does not grow by it and the run list stays small", async () => {
    const before = databaseBytes(t.dataDir);
    const { run: record, observations } = await run(codeWorkflow("big-output", 'return "x".repeat(24 * 1024 * 1024);'));
    expect(record.status).toBe("failed");
    const code = observations.find((o) => o.nodeId === "code");
    expect(code?.status).toBe("failed");
    expect(code?.error?.code).toBe("OUTPUT_TOO_LARGE");
    expect(code?.error?.message).toMatch(/about 24 MB, over the cap of 8 MB per node.*WEFT_MAX_OUTPUT_BYTES/);
    expect(databaseBytes(t.dataDir) - before).toBeLessThan(5 * MB);

    const list = await t.fetch("/api/runs?limit=5");
    expect(list.status).toBe(200);
    expect((await list.text()).length).toBeLessThan(16 * 1024);
  });

  it("a 4 MB workflow name and a 100,000-character id are refused with 400 naming the field; the list stays small", async () => {
    const huge = { ...codeWorkflow("fine-id", "return 1;"), name: "n".repeat(4 * MB) };
    const named = await t.call("POST", "/api/workflows", { workflow: huge });
    expect(named.status).toBe(400);
    const nameError = ErrorBodySchema.parse(named.body).error;
    expect(nameError.code).toBe("VALIDATION_FAILED");
    expect(nameError.message).toContain(`body.workflow.name: the name is ${4 * MB} characters, over the limit of 200`);

    const longId = await t.call("POST", "/api/workflows", { workflow: codeWorkflow("i".repeat(100_000), "return 1;") });
    expect(longId.status).toBe(400);
    expect(ErrorBodySchema.parse(longId.body).error.message).toContain("body.workflow.id: the id is 100000 characters, over the limit of 128");

    const oddId = await t.call("POST", "/api/workflows", { workflow: codeWorkflow("has space", "return 1;") });
    expect(oddId.status).toBe(400);
    expect(ErrorBodySchema.parse(oddId.body).error.message).toContain('body.workflow.id: the id "has space" may only hold letters, digits');

    const agent = await t.call("POST", "/api/agents", { id: "a".repeat(200), name: "Agent", deliberationWorkflowId: "hundred-mb" });
    expect(agent.status).toBe(400);
    expect(ErrorBodySchema.parse(agent.body).error.message).toContain("body.id: the id is 200 characters, over the limit of 128");
    const scene = await t.call("POST", "/api/scenes", { id: "s", name: "S", description: "d".repeat(20_000), agents: [] });
    expect(scene.status).toBe(400);
    expect(ErrorBodySchema.parse(scene.body).error.message).toContain("body.description: the description is 20000 characters, over the limit of 10000");

    const list = await t.fetch("/api/workflows");
    expect((await list.text()).length).toBeLessThan(64 * 1024);
  });

  it("a record stored before the limits still loads and lists: limits apply to writes", async () => {
    const old = WorkflowSchema.parse({ ...codeWorkflow("stored-long-ago", "return 1;"), name: "o".repeat(300) });
    expect((await t.server.storage.workflows.create(old)).kind).toBe("created");
    const read = await t.call("GET", "/api/workflows/stored-long-ago");
    expect(read.status).toBe(200);
    expect(z.object({ workflow: z.object({ name: z.string() }) }).parse(read.body).workflow.name).toHaveLength(300);
    const listed = z.object({ workflows: z.array(z.object({ id: z.string() })) }).parse((await t.call("GET", "/api/workflows")).body);
    expect(listed.workflows.map((w) => w.id)).toContain("stored-long-ago");
    // Saved again as it is, it is refused with the field to fix.
    const again = await t.call("PUT", "/api/workflows/stored-long-ago", { workflow: old, baseRevision: 1 });
    expect(again.status).toBe(400);
    expect(ErrorBodySchema.parse(again.body).error.message).toContain("body.workflow.name: the name is 300 characters, over the limit of 200");
  });
});

describe("large values: a preview and a link (issue 31, item 4)", () => {
  it("a 100 KB output is previewed in GET /api/runs/:id and in the events, and fetched whole through the link", async () => {
    const { run: record, observations } = await run(codeWorkflow("hundred-kb", 'return "line of text\\n".repeat(10_000);'));
    expect(record.status).toBe("completed");
    const whole = "line of text\n".repeat(10_000);
    const answer = await t.fetch(`/api/runs/${record.id}`);
    expect((await answer.text()).length).toBeLessThan(64 * 1024);

    const preview = LargeValueSchema.parse(observations.find((o) => o.nodeId === "code")?.outputs.result).$weftLarge;
    expect(preview).toMatchObject({ kind: "string", bytes: JSON.stringify(whole).length });
    expect(whole.startsWith(preview.preview)).toBe(true);
    expect(preview.preview.length).toBeLessThan(8 * 1024);
    const fetched = await t.call("GET", preview.href);
    expect(fetched.status).toBe(200);
    expect(z.object({ value: z.string() }).parse(fetched.body).value).toBe(whole);
    // The run's own output (the workflow-output node's value) has a link of its own.
    const runOutput = LargeValueSchema.parse(record.outputs.result).$weftLarge;
    expect(z.object({ value: z.string() }).parse((await t.call("GET", runOutput.href)).body).value).toBe(whole);

    const events = EventsPageSchema.parse((await t.call("GET", `/api/runs/${record.id}/events`)).body).events;
    const completed = events.find((e) => e.type === "node.completed" && e.nodeId === "code");
    expect(completed?.type === "node.completed" && isLargeValue(completed.outputs.result)).toBe(true);
    const page = await t.fetch(`/api/runs/${record.id}/events`);
    expect((await page.text()).length).toBeLessThan(64 * 1024);

    // WebSocket events (caught up here; live ones take the same path) carry the preview too.
    const ws = await TestWsClient.connect(t.url);
    try {
      ws.subscribe(record.id);
      const sent = await ws.waitFor((c) => c.events(record.id).find((e) => e.type === "node.completed" && e.nodeId === "code"));
      expect(sent.type === "node.completed" && isLargeValue(sent.outputs.result)).toBe(true);
    } finally {
      ws.close();
    }

    const missing = await t.call("GET", `/api/runs/${record.id}/value?node=code&side=outputs&key=nope`);
    expect(missing.status).toBe(404);
    expect(ErrorBodySchema.parse(missing.body).error.message).toContain('node "code" of run');
  });
});
