import { afterEach, describe, expect, it } from "vitest";
import { ExecutionEngine } from "@weft/agent-runtime";
import { createBuiltinRegistry } from "@weft/nodes";
import { silentLogger, WorkflowSchema } from "@weft/types";
import { openSqliteStorage, type Storage } from "../testing/storage.ts";
import { EventHub } from "../events/event-hub.ts";
import { EventJournal } from "../events/event-journal.ts";
import { delayChainWorkflow, removeDir, tempDir } from "../testing/test-server.ts";
import { RunExecutor } from "./run-executor.ts";
import { MIGRATIONS } from "../schema.ts";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setup(): Promise<{ storage: Storage; journal: EventJournal; executor: RunExecutor }> {
  const dir = tempDir();
  const storage = await openSqliteStorage(dir, undefined, MIGRATIONS);
  cleanup.push(
    () => removeDir(dir),
    () => storage.close(),
  );
  const journal = new EventJournal(storage, new EventHub(), { maxBatch: 512, flushMs: 5 }, silentLogger);
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
});
