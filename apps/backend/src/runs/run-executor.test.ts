import { afterEach, describe, expect, it } from "vitest";
import { ExecutionEngine } from "@weft/agent-runtime";
import { createBuiltinRegistry } from "@weft/nodes";
import { silentLogger, WorkflowSchema } from "@weft/types";
import { openSqliteStorage, type Storage } from "../testing/storage.ts";
import { EventHub } from "../events/event-hub.ts";
import { EventJournal } from "../events/event-journal.ts";
import { delayChainWorkflow, removeDir, templateWorkflow, tempDir } from "../testing/test-server.ts";
import { RunExecutor } from "./run-executor.ts";
import { MIGRATIONS } from "../schema.ts";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setup(flushMs = 5): Promise<{ storage: Storage; journal: EventJournal; executor: RunExecutor }> {
  const dir = tempDir();
  const storage = await openSqliteStorage(dir, undefined, MIGRATIONS);
  cleanup.push(
    () => removeDir(dir),
    () => storage.close(),
  );
  const journal = new EventJournal(storage, new EventHub(), { maxBatch: 512, flushMs }, silentLogger);
  const engine = new ExecutionEngine({ catalog: createBuiltinRegistry() });
  return { storage, journal, executor: new RunExecutor({ journal, engineFor: () => engine, observations: storage.observations, log: silentLogger }) };
}

describe("RunExecutor", () => {
  it("journals nothing more of a run marked lost: its end is left to the process that took it over", async () => {
    const { storage, journal, executor } = await setup();
    const workflow = WorkflowSchema.parse(delayChainWorkflow("chain", 20, 50));
    const record = { id: "run-1", workflowId: workflow.id, workflowRevision: 1, status: "queued" as const, inputs: {}, outputs: {}, createdAt: Date.now() };
    await storage.runs.create(record, workflow);
    const controller = new AbortController();
    const running = executor.execute(record, workflow, controller.signal);
    // Let it get going, then take it away as a worker does when its job's lock is lost.
    for (let i = 0; i < 100 && (await storage.events.lastSeq("run-1")) < 2; i++) await Bun.sleep(20);
    await journal.flush();
    const seqAtLoss = await storage.events.lastSeq("run-1");
    expect(seqAtLoss).toBeGreaterThanOrEqual(2);
    executor.markLost("run-1");
    controller.abort(new Error("lock lost"));
    await running;
    await journal.flush();
    expect(await storage.events.lastSeq("run-1")).toBe(seqAtLoss);
    expect((await storage.runs.get("run-1"))?.status).toBe("running");

    // The same seqs stay free for the process that closes the run.
    await executor.finishUnstarted("run-1", "interrupted", "interrupted: the worker running it stopped");
    const events = await storage.events.listAfter("run-1", -1, 1000);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: seqAtLoss + 2 }, (_, i) => i));
    expect(events.at(-1)?.type).toBe("run.cancelled");
    expect((await storage.runs.get("run-1"))?.status).toBe("interrupted");
  });

  it("records a run stopped by a client as cancelled, and one stopped by a shutdown as interrupted", async () => {
    const { storage, executor } = await setup();
    const workflow = WorkflowSchema.parse(delayChainWorkflow("chain", 20, 50));
    for (const [id, how] of [
      ["by-client", "cancel"],
      ["by-shutdown", "shutdown"],
    ] as const) {
      const record = { id, workflowId: workflow.id, workflowRevision: 1, status: "queued" as const, inputs: {}, outputs: {}, createdAt: Date.now() };
      await storage.runs.create(record, workflow);
      const controller = new AbortController();
      const running = executor.execute(record, workflow, controller.signal);
      await Bun.sleep(80);
      if (how === "cancel") executor.markCancelRequested(id);
      else executor.beginShutdown();
      controller.abort(new Error(how));
      await running;
    }
    expect((await storage.runs.get("by-client"))?.status).toBe("cancelled");
    const interrupted = await storage.runs.get("by-shutdown");
    expect(interrupted?.status).toBe("interrupted");
    expect(interrupted?.error?.code).toBe("INTERRUPTED");
  });

  it("ends a queue batch's run without its own commit when asked ('later'): stored with the journal's next flush, or at once by stored(); a failed run is stored before it resolves", async () => {
    // No timer flush within the test: only maxBatch, an awaited flush or stored() writes.
    const { storage, executor } = await setup(600_000);
    const workflow = WorkflowSchema.parse(templateWorkflow("notes"));
    const queued = (id: string, inputs: Record<string, unknown>) => ({ id, workflowId: workflow.id, workflowRevision: 1, status: "queued" as const, inputs, outputs: {}, createdAt: Date.now() });
    for (const id of ["later", "now", "failed"]) await storage.runs.create(queued(id, id === "failed" ? {} : { topic: id }), workflow);

    await executor.execute(queued("later", { topic: "later" }), workflow, new AbortController().signal, undefined, undefined, "later");
    expect((await storage.runs.get("later"))?.status).toBe("queued");
    expect(await storage.events.lastSeq("later")).toBe(-1);
    // The default, as every run but a batch's ends: stored before it resolves (the batch's waiting run goes with it).
    await executor.execute(queued("now", { topic: "now" }), workflow, new AbortController().signal);
    expect((await storage.runs.get("now"))?.status).toBe("completed");
    expect(await storage.runs.get("later")).toMatchObject({ status: "completed", outputs: { text: "Notes on later" } });

    // A failed run (its required input missing) is stored before it resolves: its error workflow reads it.
    await executor.execute(queued("failed", {}), workflow, new AbortController().signal, undefined, undefined, "later");
    expect((await storage.runs.get("failed"))?.status).toBe("failed");

    await storage.runs.create(queued("later-2", { topic: "two" }), workflow);
    await executor.execute(queued("later-2", { topic: "two" }), workflow, new AbortController().signal, undefined, undefined, "later");
    expect((await storage.runs.get("later-2"))?.status).toBe("queued");
    await executor.stored();
    const stored = await storage.runs.get("later-2");
    expect(stored).toMatchObject({ status: "completed", outputs: { text: "Notes on two" } });
    expect((await storage.events.listAfter("later-2", -1, 100)).at(-1)?.type).toBe("run.completed");
    expect((await storage.observations.listByRun("later-2")).map((o) => o.nodeId).sort()).toEqual(["fill", "out", "topic"]);
  });
});
