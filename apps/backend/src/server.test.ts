import { afterEach, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { AgentProfileSchema, SceneSchema, WorkflowSchema } from "@weft/types";
import { RunStatusSchema, StartedRunSchema, WorkflowAnswerSchema } from "./testing/answers.ts";
import { openSqliteStorage } from "./testing/storage.ts";
import { LlmProfileListSchema } from "./testing/llm-profile-view.ts";
import { EventsPageSchema, RunAnswerSchema, slowWorkflow, startTestServer, templateWorkflow, tempDir, waitFor } from "./testing/test-server.ts";
import { spawnServer, type ChildServer } from "./testing/child-server.ts";
import { MIGRATIONS } from "./schema.ts";

/** GET /api/workflows, as far as these tests read it. */
const WorkflowListSchema = z.object({ workflows: z.array(z.object({ id: z.string() })) });

const children: ChildServer[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.proc.exitCode === null) {
      c.proc.kill(9);
      await c.proc.exited;
    }
  }
});

async function waitForStatus(s: Pick<ChildServer, "call">, runId: string, statuses: string[], timeoutMs = 15_000) {
  return waitFor(
    async () => {
      const res = await s.call("GET", `/api/runs/${runId}`);
      const probe = RunStatusSchema.safeParse(res.body);
      return probe.success && statuses.includes(probe.data.run.status) ? res.body : undefined;
    },
    timeoutMs,
    `run ${runId} to be ${statuses.join("/")}`,
  );
}

describe("persistence across restarts", () => {
  it("keeps workflows, agents, scenes, profiles and runs", async () => {
    const dataDir = tempDir();
    const first = await startTestServer({ dataDir });
    await first.call("POST", "/api/workflows", { workflow: templateWorkflow("keep") });
    await first.call("PUT", "/api/workflows/keep", { workflow: { ...templateWorkflow("keep"), name: "Kept" }, baseRevision: 1 });
    const agent = await first.call("POST", "/api/agents", { id: "helper", name: "Helper", deliberationWorkflowId: "keep" });
    expect(agent.status).toBe(201);
    const scene = await first.call("POST", "/api/scenes", { id: "room", name: "Room", agents: [{ instanceId: "h1", profileId: "helper" }] });
    expect(scene.status).toBe(201);
    await first.call("POST", "/api/llm-profiles", { name: "Local", baseUrl: "http://127.0.0.1:1/v1", model: "m", apiKey: "sk-abcdefgh12345678" });
    const run = StartedRunSchema.parse((await first.call("POST", "/api/workflows/keep/runs", { inputs: { topic: "twill" } })).body);
    const done = await waitForStatus(first, run.runId, ["completed"]);
    await first.stop();

    const second = await startTestServer({ dataDir });
    try {
      expect(WorkflowAnswerSchema.parse((await second.call("GET", "/api/workflows/keep")).body).workflow).toMatchObject({ name: "Kept", revision: 2 });
      expect(z.object({ agent: AgentProfileSchema }).parse((await second.call("GET", "/api/agents/helper")).body).agent).toMatchObject({ name: "Helper", revision: 1 });
      expect(z.object({ scene: SceneSchema }).parse((await second.call("GET", "/api/scenes/room")).body).scene.agents).toHaveLength(1);
      const profiles = LlmProfileListSchema.parse((await second.call("GET", "/api/llm-profiles")).body).profiles;
      expect(profiles.find((p) => p.id === "local")).toMatchObject({ apiKeyMasked: "sk-…5678" });
      expect((await second.call("GET", `/api/runs/${run.runId}`)).body).toEqual(done);
      expect(second.server.interruptedAtStart).toEqual([]);
    } finally {
      await second.stop();
    }
  });

  it("loads the example content on first start only, never over the user's edits", async () => {
    const examples = tempDir("weft-examples-");
    await Bun.write(`${examples}/ex.json`, JSON.stringify(templateWorkflow("example")));
    await Bun.write(`${examples}/broken.json`, "{ nope");
    await Bun.write(`${examples}/agents/a.json`, JSON.stringify({ id: "ex-agent", name: "Ex", deliberationWorkflowId: "example" }));
    const dataDir = tempDir();
    const first = await startTestServer({ dataDir, examplesDir: examples });
    expect((await first.call("GET", "/api/agents/ex-agent")).status).toBe(200);
    await first.call("PUT", "/api/workflows/example", { workflow: { ...templateWorkflow("example"), name: "Edited" }, baseRevision: 1 });
    await first.call("DELETE", "/api/agents/ex-agent");
    await first.stop();
    const second = await startTestServer({ dataDir, examplesDir: examples });
    try {
      expect(WorkflowAnswerSchema.parse((await second.call("GET", "/api/workflows/example")).body).workflow).toMatchObject({ name: "Edited", revision: 2 });
      expect((await second.call("GET", "/api/agents/ex-agent")).status).toBe(404);
    } finally {
      await second.stop();
    }
  });
});

describe("the repository's examples", () => {
  it("load into a new database, and a workflow calling a stored skill runs", async () => {
    const repoExamples = fileURLToPath(new URL("../../../workflows", import.meta.url));
    const t = await startTestServer({ examplesDir: repoExamples });
    try {
      const listed = WorkflowListSchema.parse((await t.call("GET", "/api/workflows")).body).workflows.map((w) => w.id);
      expect(listed).toEqual(expect.arrayContaining(["calls-skill", "summarize-skill"]));
      const started = await t.call("POST", "/api/workflows/calls-skill/runs", { inputs: { article: "Warp threads run lengthwise. Weft threads cross them. The loom holds both." } });
      expect(started.status).toBe(202);
      const runId = StartedRunSchema.parse(started.body).runId;
      const done = await waitFor(async () => {
        const res = await t.call("GET", `/api/runs/${runId}`);
        return ["completed", "failed"].includes(RunStatusSchema.parse(res.body).run.status) ? RunAnswerSchema.parse(res.body) : undefined;
      });
      expect(done.run.status).toBe("completed");
      expect(typeof done.run.outputs.report).toBe("string");
      // The skill's own nodes ran inside this run, namespaced under the calling node.
      expect(done.observations.some((o) => o.nodeId.startsWith("headline/"))).toBe(true);
    } finally {
      await t.stop();
    }
  });
});

describe("a real server process", () => {
  it("killed with SIGKILL mid-run restarts with the run interrupted, completed data intact, and re-runnable", async () => {
    const dataDir = tempDir();
    const first = await spawnServer(dataDir);
    children.push(first);
    await first.call("POST", "/api/workflows", { workflow: templateWorkflow("quick") });
    await first.call("POST", "/api/workflows", { workflow: slowWorkflow("long", 60_000) });
    const quick = StartedRunSchema.parse((await first.call("POST", "/api/workflows/quick/runs", { inputs: { topic: "felt" } })).body);
    const quickDone = await waitForStatus(first, quick.runId, ["completed"]);
    const long = StartedRunSchema.parse((await first.call("POST", "/api/workflows/long/runs", {})).body);
    await waitForStatus(first, long.runId, ["running"]);
    first.proc.kill(9);
    expect(await first.proc.exited).not.toBe(0);

    const second = await spawnServer(dataDir);
    children.push(second);
    const after = RunAnswerSchema.parse((await second.call("GET", `/api/runs/${long.runId}`)).body);
    expect(after.run).toMatchObject({ status: "interrupted", error: { code: "INTERRUPTED" } });
    const events = EventsPageSchema.parse((await second.call("GET", `/api/runs/${long.runId}/events`)).body).events;
    expect(events[0]?.type).toBe("run.started");
    expect(events.at(-1)).toMatchObject({ type: "run.cancelled", seq: events.length - 1 });
    const cancelled = events.at(-1);
    expect(cancelled?.type === "run.cancelled" ? cancelled.reason : undefined).toContain("interrupted");
    expect((await second.call("GET", `/api/runs/${quick.runId}`)).body).toEqual(quickDone);
    expect(z.object({ workflow: WorkflowSchema }).parse((await second.call("GET", "/api/workflows/long")).body).workflow.nodes).toHaveLength(2);

    const rerun = await second.call("POST", `/api/runs/${long.runId}/rerun`);
    expect(rerun.status).toBe(202);
    const rerunId = StartedRunSchema.parse(rerun.body).runId;
    await waitForStatus(second, rerunId, ["running"]);
    await second.call("POST", `/api/runs/${rerunId}/cancel`);
    expect(RunAnswerSchema.parse(await waitForStatus(second, rerunId, ["cancelled"])).run.sourceRunId).toBe(long.runId);
  });

  it("takes a signal arriving twice at once (Ctrl-C under npm start) as one, and a signal sent again later as the order to exit now", async () => {
    /**
     * A server with a minute-long run under way, which a graceful shutdown waits for up to `graceMs`. Not a short run
     * that ends on its own: under a CPU hog a 400 ms run went from queued to completed between two polls for "running".
     */
    const serverWithRun = async (dataDir: string, graceMs: number) => {
      const server = await spawnServer(dataDir, { WEFT_SHUTDOWN_GRACE_MS: String(graceMs) });
      children.push(server);
      await server.call("POST", "/api/workflows", { workflow: slowWorkflow("slow", 60_000) });
      const { runId } = StartedRunSchema.parse((await server.call("POST", "/api/workflows/slow/runs", {})).body);
      await waitForStatus(server, runId, ["running"]);
      return { server, runId };
    };
    const dataDir = tempDir();
    const { server, runId } = await serverWithRun(dataDir, 3000);
    // The second a moment after the first (as `bun run` passes it on): sent together, the kernel would merge them.
    server.proc.kill("SIGINT");
    await Bun.sleep(30);
    server.proc.kill("SIGINT");
    expect(await server.proc.exited).toBe(0);
    expect(server.output()).not.toContain("Second signal");
    // Stopped by the graceful shutdown once its grace ran out (an exit without waiting would leave it "running").
    const storage = await openSqliteStorage(dataDir, undefined, MIGRATIONS);
    try {
      expect(await storage.runs.get(runId)).toMatchObject({ status: "interrupted", error: { code: "INTERRUPTED" } });
    } finally {
      await storage.close();
    }

    const again = (await serverWithRun(tempDir(), 30_000)).server;
    again.proc.kill("SIGTERM");
    // "Later" counts from when the server took the first signal (it says so), not from when it was sent: a busy
    // machine may run the handler late, and then a second signal 1.2 s after the first was sent came within its second.
    await waitFor(async () => (again.output().includes("SIGTERM: finishing running runs") ? true : undefined), 60_000, "the server to take the first signal");
    await Bun.sleep(1200);
    again.proc.kill("SIGTERM");
    expect(await again.proc.exited).toBe(1);
    expect(again.output()).toContain("Second signal: exiting without waiting");
  });

  it("on SIGTERM lets short runs finish, stops long ones as interrupted, flushes their events and exits 0", async () => {
    const dataDir = tempDir();
    const server = await spawnServer(dataDir, { WEFT_SHUTDOWN_GRACE_MS: "1500" });
    children.push(server);
    await server.call("POST", "/api/workflows", { workflow: slowWorkflow("short", 400) });
    await server.call("POST", "/api/workflows", { workflow: slowWorkflow("long", 60_000) });
    const short = StartedRunSchema.parse((await server.call("POST", "/api/workflows/short/runs", {})).body);
    const long = StartedRunSchema.parse((await server.call("POST", "/api/workflows/long/runs", {})).body);
    await waitForStatus(server, long.runId, ["running"]);
    await waitForStatus(server, short.runId, ["running", "completed"]);
    server.proc.kill("SIGTERM");
    expect(await server.proc.exited).toBe(0);

    const storage = await openSqliteStorage(dataDir, undefined, MIGRATIONS);
    try {
      expect((await storage.runs.get(short.runId))?.status).toBe("completed");
      const longRun = await storage.runs.get(long.runId);
      expect(longRun).toMatchObject({ status: "interrupted", error: { code: "INTERRUPTED" } });
      const events = await storage.events.listAfter(long.runId, -1, 100);
      expect(events.at(-1)?.type).toBe("run.cancelled");
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    } finally {
      storage.close();
    }
  });
});
