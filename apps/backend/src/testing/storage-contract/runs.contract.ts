import { describe, expect, it } from "vitest";
import type { Observation } from "@weft/types";
import { SUMMARY_ERROR_CHARS, type RunRecord } from "../../events/run-repository.ts";
import { redactorWith, storageOpener, workflow, type StorageHarness } from "./harness.ts";

export function run(id: string, createdAt: number, extra: Partial<RunRecord> = {}): RunRecord {
  return { id, workflowId: "wf", workflowRevision: 1, status: "queued", inputs: {}, outputs: {}, createdAt, ...extra };
}

export function observation(runId: string, invocationId: string, extra: Partial<Observation> = {}): Observation {
  return {
    runId,
    nodeId: `node-${invocationId}`,
    invocationId,
    nodeType: "core:text-transform",
    status: "completed",
    inputs: { text: "in" },
    outputs: { text: "out" },
    chunks: [],
    startedAt: 1,
    durationMs: 2.5,
    cached: false,
    attempts: 1,
    ...extra,
  };
}

export function runsContract(harness: StorageHarness): void {
  describe(`storage contract (${harness.engine}): runs`, () => {
    const { fresh } = storageOpener(harness);

    it("store a run with its workflow snapshot, read it back field for field, and apply status updates", async () => {
      const storage = await fresh();
      const snapshot = workflow({ id: "wf", name: "The workflow", nodes: [{ id: "x", type: "core:text-transform" }] });
      const full = run("r1", 1_700_000_000_123, {
        inputs: { topic: "t", n: 2 },
        rerunFrom: "x",
        sourceRunId: "r0",
        workflowRevision: 3,
        createdBy: "user-1",
        forkOf: { runId: "r0", nodeId: "x" },
        forkChanges: { settings: { mode: "upper" }, inputs: { text: "t" }, pins: { y: { out: [1, 2] } } },
      });
      await storage.runs.create(full, snapshot);
      await storage.runs.create(run("r2", 1_700_000_000_124), undefined);
      expect(await storage.runs.get("r1")).toEqual(full);
      expect(await storage.runs.get("r2")).toEqual(run("r2", 1_700_000_000_124));
      expect(await storage.runs.get("missing")).toBeUndefined();
      expect(await storage.runs.getWorkflow("r1")).toEqual(snapshot);
      expect(await storage.runs.getWorkflow("r2")).toBeUndefined();
      expect(await storage.runs.getWorkflow("missing")).toBeUndefined();

      await storage.runs.update({ id: "r1", status: "running", startedAt: 1_700_000_000_200 });
      await storage.runs.update({ id: "r1", status: "failed", finishedAt: 1_700_000_000_300, durationMs: 100.25, outputs: { text: "o" }, error: { code: "BOOM", message: "it broke" } });
      expect(await storage.runs.get("r1")).toEqual({
        ...full,
        status: "failed",
        startedAt: 1_700_000_000_200,
        finishedAt: 1_700_000_000_300,
        durationMs: 100.25,
        outputs: { text: "o" },
        error: { code: "BOOM", message: "it broke" },
      });
    });

    it("list newest first with filters, a limit and paging back by creation time; listUnfinished gives queued and running, oldest first", async () => {
      const storage = await fresh();
      await storage.runs.create(run("a", 100, { status: "completed" }), undefined);
      await storage.runs.create(run("b", 200, { workflowId: "other", status: "running" }), undefined);
      await storage.runs.create(run("c", 300, { status: "queued" }), undefined);
      await storage.runs.create(run("d", 300, { status: "failed" }), undefined);
      await storage.runs.create(run("e", 400, { status: "running" }), undefined);
      const ids = (rs: Array<{ id: string }>) => rs.map((r) => r.id);
      expect(ids(await storage.runs.list({ limit: 10 }))).toEqual(["e", "d", "c", "b", "a"]);
      expect(ids(await storage.runs.list({ limit: 2 }))).toEqual(["e", "d"]);
      expect(ids(await storage.runs.list({ limit: 2, before: 300 }))).toEqual(["b", "a"]);
      expect(ids(await storage.runs.list({ limit: 10, workflowId: "other" }))).toEqual(["b"]);
      expect(ids(await storage.runs.list({ limit: 10, status: "running" }))).toEqual(["e", "b"]);
      expect(ids(await storage.runs.list({ limit: 10, workflowId: "wf", status: "running", before: 400 }))).toEqual([]);
      expect(ids(await storage.runs.listUnfinished())).toEqual(["b", "c", "e"]);
    });

    it("list gives summaries: no inputs or outputs, a long error message cut", async () => {
      const storage = await fresh();
      const big = "x".repeat(50_000);
      await storage.runs.create(run("big", 100, { status: "failed", inputs: { text: big }, outputs: { text: big }, error: { code: "NODE_ERROR", message: big } }), undefined);
      const [summary] = await storage.runs.list({ limit: 5 });
      expect(summary).not.toHaveProperty("inputs");
      expect(summary).not.toHaveProperty("outputs");
      expect(summary.error?.message.length).toBeLessThan(SUMMARY_ERROR_CHARS + 100);
      expect(JSON.stringify(summary).length).toBeLessThan(2000);
      expect((await storage.runs.get("big"))?.outputs).toEqual({ text: big });
    });

    it("runtime records pass the redactor: a stored secret never reaches the database", async () => {
      const storage = await fresh(redactorWith("sk-very-secret-value"));
      await storage.runs.create(run("r", 1, { inputs: { key: "sk-very-secret-value" } }), undefined);
      await storage.runs.update({ id: "r", status: "failed", outputs: { echo: "x sk-very-secret-value" }, error: { code: "E", message: "sk-very-secret-value leaked" } });
      await storage.observations.upsert([{ ord: 0, observation: observation("r", "i1", { outputs: { v: "sk-very-secret-value" } }) }]);
      const stored = JSON.stringify([await storage.runs.get("r"), await storage.observations.listByRun("r")]);
      expect(stored).not.toContain("sk-very-secret-value");
      expect(stored).toContain("contract secret");
    });
  });

  describe(`storage contract (${harness.engine}): observations`, () => {
    const { fresh } = storageOpener(harness);

    it("upsert by (run, invocation) keeping the start order, and replace a run's observations at once", async () => {
      const storage = await fresh();
      await storage.observations.upsert([
        { ord: 1, observation: observation("r", "second") },
        { ord: 0, observation: observation("r", "first", { status: "skipped" }) },
        { ord: 0, observation: observation("other", "x") },
      ]);
      await storage.observations.upsert([{ ord: 0, observation: observation("r", "first", { status: "completed", durationMs: 9 }) }]);
      const listed = await storage.observations.listByRun("r");
      expect(listed.map((o) => [o.invocationId, o.status, o.durationMs])).toEqual([
        ["first", "completed", 9],
        ["second", "completed", 2.5],
      ]);
      expect(listed[0]).toEqual(observation("r", "first", { status: "completed", durationMs: 9 }));
      await storage.observations.replaceForRuns([{ runId: "r", observations: [observation("ignored-run-id", "z"), observation("r", "y")] }]);
      expect((await storage.observations.listByRun("r")).map((o) => [o.runId, o.invocationId])).toEqual([
        ["r", "z"],
        ["r", "y"],
      ]);
      expect(await storage.observations.listByRun("other")).toHaveLength(1);
      expect(await storage.observations.listByRun("none")).toEqual([]);
    });

    it("replaces several runs' observations at once, joining the caller's transaction (rolled back with it)", async () => {
      const storage = await fresh();
      await storage.observations.upsert([
        { ord: 0, observation: observation("a", "old") },
        { ord: 0, observation: observation("b", "old") },
        { ord: 0, observation: observation("other", "kept") },
      ]);
      const finals = [
        { runId: "a", observations: [observation("a", "a1"), observation("a", "a2")] },
        { runId: "b", observations: [observation("b", "b1")] },
      ];
      await expect(
        storage.transaction(async () => {
          await storage.observations.replaceForRuns(finals);
          throw new Error("the flush failed after it");
        }),
      ).rejects.toThrow("the flush failed after it");
      expect((await storage.observations.listByRun("a")).map((o) => o.invocationId)).toEqual(["old"]);
      await storage.transaction(() => storage.observations.replaceForRuns(finals));
      expect((await storage.observations.listByRun("a")).map((o) => o.invocationId)).toEqual(["a1", "a2"]);
      expect((await storage.observations.listByRun("b")).map((o) => o.invocationId)).toEqual(["b1"]);
      await storage.observations.replaceForRuns([{ runId: "b", observations: [] }]);
      expect(await storage.observations.listByRun("b")).toEqual([]);
      expect((await storage.observations.listByRun("other")).map((o) => o.invocationId)).toEqual(["kept"]);
    });

    it("a batch holding a node twice (started, then finished) stores the last, in the place of the first", async () => {
      const storage = await fresh();
      await storage.observations.upsert([
        { ord: 0, observation: observation("r", "a", { status: "failed" }) },
        { ord: 1, observation: observation("r", "b", { status: "skipped" }) },
        { ord: 0, observation: observation("r", "a", { status: "completed", durationMs: 7 }) },
      ]);
      const listed = await storage.observations.listByRun("r");
      expect(listed.map((o) => [o.invocationId, o.status])).toEqual([
        ["a", "completed"],
        ["b", "skipped"],
      ]);
      expect(listed[0]).toEqual(observation("r", "a", { status: "completed", durationMs: 7 }));
    });
  });
}
