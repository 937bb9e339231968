import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkflowInput } from "@weft/types";
import { EventsPageSchema, startTestServer, templateWorkflow, waitFor, waitForRun, type TestServer } from "../testing/test-server.ts";
import { StartedRunSchema } from "../testing/answers.ts";

/** One code:javascript node running `code` with the given limits. */
function codeWorkflow(id: string, code: string, limits: { timeoutMs: number; memoryMb?: number }): WorkflowInput {
  return { id, name: id, nodes: [{ id: "code", type: "code:javascript", inputs: { code, ...limits } }], edges: [] };
}

/** Logs once (a chunk the API can show while the code still runs), then spins until stopped. */
const SPIN = 'console.log("spinning");\nwhile (true) {}';

async function startRun(t: TestServer, workflowId: string, inputs: Record<string, unknown> = {}): Promise<string> {
  const res = await t.call("POST", `/api/workflows/${workflowId}/runs`, { inputs });
  expect(res.status).toBe(202);
  return StartedRunSchema.parse(res.body).runId;
}

/** Waits for the code node's first console line to reach the run's events: the code is running now. */
async function codeIsRunning(t: TestServer, runId: string): Promise<void> {
  await waitFor(
    async () => {
      const page = EventsPageSchema.parse((await t.call("GET", `/api/runs/${runId}/events`)).body);
      return page.events.some((event) => event.type === "node.chunk") ? true : undefined;
    },
    60_000,
    "the code node's first console line",
  );
}

describe("code:javascript never holds the server", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ runConcurrency: 8 });
    for (const workflow of [
      codeWorkflow("spin", SPIN, { timeoutMs: 30_000 }),
      codeWorkflow("bomb", 'console.log("filling");\nconst a = []; for (;;) a.push({ n: a.length, list: [1, 2, 3] });', { timeoutMs: 30_000, memoryMb: 32 }),
      codeWorkflow("answer", "return 6 * 7;", { timeoutMs: 10_000 }),
      templateWorkflow("notes"),
    ]) {
      expect((await t.call("POST", "/api/workflows", { workflow })).status).toBe(201);
    }
  });
  afterAll(() => t.stop());

  it("answers /api/health and completes other runs while a node spins, then cancelling stops the spinning code", async () => {
    const spinning = await startRun(t, "spin");
    await codeIsRunning(t, spinning);

    const health = await t.call("GET", "/api/health");
    expect(health.status).toBe(200);
    const other = await startRun(t, "notes", { topic: "weaving" });
    expect((await waitForRun(t, other, 60_000)).run.status).toBe("completed");
    // All of that happened while the spinning node was still running (its limit is 30 s).
    const meanwhile = await t.call("GET", `/api/runs/${spinning}`);
    expect(meanwhile.body).toMatchObject({ run: { status: "running" } });

    expect((await t.call("POST", `/api/runs/${spinning}/cancel`)).status).toBe(200);
    const cancelled = await waitForRun(t, spinning, 60_000);
    expect(cancelled.run.status).toBe("cancelled");
    // Its thread was terminated and replaced: code runs on.
    const answer = await waitForRun(t, await startRun(t, "answer"), 60_000);
    expect(answer.observations.find((o) => o.nodeId === "code")?.outputs).toMatchObject({ result: 42 });
  });

  it("stops a memory bomb with a clear error while the server answers on, and runs code after it", async () => {
    const bomb = await startRun(t, "bomb");
    await codeIsRunning(t, bomb);
    expect((await t.call("GET", "/api/health")).status).toBe(200);

    const failed = await waitForRun(t, bomb, 60_000);
    expect(failed.run.status).toBe("failed");
    const observation = failed.observations.find((o) => o.nodeId === "code");
    expect(observation?.error).toMatchObject({ code: "CODE_MEMORY_LIMIT", message: expect.stringContaining("32 MiB") });

    expect((await t.call("GET", "/api/health")).status).toBe(200);
    const answer = await waitForRun(t, await startRun(t, "answer"), 60_000);
    expect(answer.observations.find((o) => o.nodeId === "code")?.outputs).toMatchObject({ result: 42 });
  });
});
