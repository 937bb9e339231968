import { describe, expect, it } from "vitest";
import type { WriteBatch } from "../../events/write-batch.ts";
import { observation, run } from "./runs.contract.ts";
import { storageOpener, workflow, type StorageHarness } from "./harness.ts";

export function transactionsContract(harness: StorageHarness): void {
  describe(`storage contract (${harness.engine}): writeBatch and transaction`, () => {
    const { fresh, database } = storageOpener(harness);

    it("writeBatch stores new runs, events, observations, final observations and run updates together", async () => {
      const storage = await fresh();
      await storage.runs.create(run("r1", 10), undefined);
      await storage.observations.upsert([{ ord: 0, observation: observation("r1", "old") }]);
      const batch: WriteBatch = {
        newRuns: [{ record: run("r2", 20, { workflowId: "agent-wf" }), workflow: workflow({ id: "agent-wf", name: "w", nodes: [] }) }],
        events: [
          { streamId: "r1", seq: 0, type: "run.started", json: '{"type":"run.started"}' },
          { streamId: "r2", seq: 0, type: "run.started", json: '{"type":"run.started"}' },
        ],
        observations: [{ ord: 0, observation: observation("r2", "i") }],
        finalObservations: [{ runId: "r1", observations: [observation("r1", "final")] }],
        runUpdates: [{ id: "r1", status: "completed", finishedAt: 30, durationMs: 20 }],
      };
      await storage.writeBatch(batch);
      expect(await storage.runs.get("r2")).toEqual(run("r2", 20, { workflowId: "agent-wf" }));
      expect((await storage.runs.getWorkflow("r2"))?.id).toBe("agent-wf");
      expect(await storage.events.lastSeq("r1")).toBe(0);
      expect(await storage.events.lastSeq("r2")).toBe(0);
      expect((await storage.observations.listByRun("r1")).map((o) => o.invocationId)).toEqual(["final"]);
      expect((await storage.observations.listByRun("r2")).map((o) => o.invocationId)).toEqual(["i"]);
      expect(await storage.runs.get("r1")).toMatchObject({ status: "completed", finishedAt: 30, durationMs: 20 });
    });

    it("writeBatch ends several runs at once: each run's last final list replaces what it had, its updates applied in turn", async () => {
      const storage = await fresh();
      for (const id of ["a", "b", "c"]) await storage.runs.create(run(id, 10), undefined);
      await storage.observations.upsert([
        { ord: 0, observation: observation("a", "running") },
        { ord: 0, observation: observation("c", "kept") },
      ]);
      await storage.writeBatch({
        newRuns: [],
        events: [],
        observations: [],
        finalObservations: [
          { runId: "a", observations: [observation("a", "a1"), observation("a", "a2")] },
          { runId: "b", observations: [observation("b", "first list")] },
          { runId: "b", observations: [observation("b", "b1")] },
        ],
        runUpdates: [
          { id: "a", status: "running", startedAt: 11 },
          { id: "b", status: "running", startedAt: 12 },
          { id: "a", status: "completed", finishedAt: 20, durationMs: 9, outputs: { text: "done" } },
          { id: "b", status: "failed", finishedAt: 21, error: { code: "NODE_FAILED", message: "m" } },
        ],
      });
      expect((await storage.observations.listByRun("a")).map((o) => o.invocationId)).toEqual(["a1", "a2"]);
      expect((await storage.observations.listByRun("b")).map((o) => o.invocationId)).toEqual(["b1"]);
      expect((await storage.observations.listByRun("c")).map((o) => o.invocationId)).toEqual(["kept"]);
      expect(await storage.runs.get("a")).toMatchObject({ status: "completed", startedAt: 11, finishedAt: 20, durationMs: 9, outputs: { text: "done" } });
      expect(await storage.runs.get("b")).toMatchObject({ status: "failed", startedAt: 12, finishedAt: 21, error: { code: "NODE_FAILED", message: "m" } });
      expect(await storage.runs.get("c")).toMatchObject({ status: "queued" });
    });

    it("a run stored by writeBatch reads back as runs.create stores it, every field included", async () => {
      const storage = await fresh();
      const full = run("full", 5, {
        status: "running",
        error: { code: "NODE_FAILED", message: "m" },
        rerunFrom: "n1",
        sourceRunId: "src",
        forkOf: { runId: "src", nodeId: "n1" },
        forkChanges: { settings: { a: 1 } },
        createdBy: "u1",
        trigger: { kind: "webhook", nodeId: "hook", path: "p", at: 5 },
        startedAt: 6,
        durationMs: 1,
        workflowVersion: 3,
      });
      await storage.writeBatch({ newRuns: [{ record: full, workflow: undefined }], events: [], observations: [], finalObservations: [], runUpdates: [] });
      await storage.runs.create({ ...full, id: "created" }, undefined);
      expect(await storage.runs.get("full")).toEqual(full);
      expect(await storage.runs.get("created")).toEqual({ ...full, id: "created" });
    });

    it("a writeBatch that fails part-way stores nothing of it", async () => {
      const storage = await fresh();
      await storage.events.append([{ streamId: "r", seq: 1, type: "t", json: "{}" }]);
      const failing: WriteBatch = {
        newRuns: [{ record: run("new", 1), workflow: undefined }],
        events: [
          { streamId: "r", seq: 0, type: "t", json: "{}" },
          { streamId: "r", seq: 1, type: "t", json: "{}" },
        ],
        observations: [],
        finalObservations: [],
        runUpdates: [],
      };
      await expect(storage.writeBatch(failing)).rejects.toThrow();
      expect(await storage.runs.get("new")).toBeUndefined();
      expect((await storage.events.listAfter("r", -1, 10)).map((e) => e.seq)).toEqual([1]);
    });

    it("transaction: everything awaited inside is stored on success; a body that throws leaves nothing and rethrows", async () => {
      const storage = await fresh();
      const answer = await storage.transaction(async () => {
        await storage.workflows.create(workflow({ id: "kept", name: "kept", nodes: [] }));
        await storage.meta.set("k", "v");
        return 42;
      });
      expect(answer).toBe(42);
      expect(await storage.meta.get("k")).toBe("v");
      const failure = new Error("the body failed");
      await expect(
        storage.transaction(async () => {
          await storage.workflows.create(workflow({ id: "lost", name: "lost", nodes: [] }));
          await storage.runs.create(run("lost-run", 1), undefined);
          await storage.events.append([{ streamId: "lost-run", seq: 0, type: "t", json: "{}" }]);
          await storage.settings.set("lost", true);
          await storage.workflows.put(workflow({ id: "kept", name: "changed", nodes: [] }), 9);
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await storage.workflows.get("lost")).toBeUndefined();
      expect(await storage.runs.get("lost-run")).toBeUndefined();
      expect(await storage.events.lastSeq("lost-run")).toBe(-1);
      expect(await storage.settings.get("lost")).toBeUndefined();
      expect((await storage.workflows.get("kept"))?.document).toMatchObject({ name: "kept", revision: 1 });
      expect(await storage.workflows.ids()).toEqual(["kept"]);
    });

    it("transaction: reads inside see its own writes; a nested transaction that throws rolls back only its part", async () => {
      const storage = await fresh();
      await storage.transaction(async () => {
        await storage.meta.set("outer", "1");
        expect(await storage.meta.get("outer")).toBe("1");
        await expect(
          storage.transaction(async () => {
            await storage.meta.set("inner", "1");
            throw new Error("inner failed");
          }),
        ).rejects.toThrow("inner failed");
        await storage.meta.set("after", "1");
      });
      expect([await storage.meta.get("outer"), await storage.meta.get("inner"), await storage.meta.get("after")]).toEqual(["1", undefined, "1"]);
    });

    it("transaction: calls from outside it and another transaction are not lost with its rollback", async () => {
      const storage = await fresh();
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const order: string[] = [];
      const failing = storage.transaction(async () => {
        await storage.meta.set("inside", "1");
        order.push("inside");
        await held;
        throw new Error("rolled back");
      });
      const outside = storage.meta.set("outside", "1").then(() => order.push("outside"));
      const second = storage.transaction(async () => {
        order.push("second");
        await storage.meta.set("second", "1");
      });
      await Bun.sleep(20);
      release();
      await expect(failing).rejects.toThrow("rolled back");
      await Promise.all([outside, second]);
      expect([...order].sort()).toEqual(["inside", "outside", "second"]);
      expect([await storage.meta.get("inside"), await storage.meta.get("outside"), await storage.meta.get("second")]).toEqual([undefined, "1", "1"]);
    });

    it("transaction: a callback the body scheduled that runs after it ended writes outside it", async () => {
      const storage = await fresh();
      let later: Promise<void> | undefined;
      await storage.transaction(async () => {
        await storage.meta.set("inside", "1");
        later = new Promise<void>((resolve, reject) => setTimeout(() => storage.meta.set("later", "1").then(resolve, reject), 30));
      });
      await later;
      expect([await storage.meta.get("inside"), await storage.meta.get("later")]).toEqual(["1", "1"]);
      // And a transaction that rolled back does not take such a later write with it.
      await expect(
        storage.transaction(async () => {
          later = new Promise<void>((resolve, reject) => setTimeout(() => storage.meta.set("after rollback", "1").then(resolve, reject), 30));
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      await later;
      expect(await storage.meta.get("after rollback")).toBe("1");
    });

    it("two storages on one database: a revision check and write inside transactions never lose an update", async () => {
      const db = await database();
      const [one, two] = [await db.open(), await db.open()];
      await one.workflows.create(workflow({ id: "w", name: "0", nodes: [] }));
      const bump = async (storage: typeof one): Promise<void> => {
        for (let attempt = 0; ; attempt++) {
          const current = await storage.workflows.get("w");
          if (!current) throw new Error("gone");
          const result = await storage.workflows.update({ ...current.document, name: String(Number(current.document.name) + 1) }, current.document.revision);
          if (result.kind === "updated") return;
          if (attempt > 50) throw new Error("too many conflicts");
        }
      };
      await Promise.all(Array.from({ length: 10 }, (_, i) => bump(i % 2 === 0 ? one : two)));
      expect((await two.workflows.get("w"))?.document).toMatchObject({ name: "10", revision: 11 });
    });
  });
}
