import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStorage, type Storage } from "../testing/storage.ts";
import { tempDir } from "../testing/temp-dirs.ts";
import { silentLogger, WorkflowSchema } from "@weft/types";
import { RunFactsLookup } from "./run-facts.ts";
import { UsageRecorder } from "./usage-recorder.ts";
import { UsageRepository } from "./usage-repository.ts";

let storage: Storage;
let usage: UsageRepository;
beforeAll(async () => {
  storage = await openSqliteStorage(tempDir());
  usage = new UsageRepository(storage);
});
afterAll(() => storage.close());

describe("UsageRecorder", () => {
  it("names the user an agent's loop acts for, though the deliberation run's record is not stored yet", async () => {
    const recorder = new UsageRecorder(usage, new RunFactsLookup(storage.runs), silentLogger);
    await recorder.record({
      caller: { runId: "not-stored-yet", agentId: "a1", conversationId: "c1", userId: "alice" },
      profileId: "p1",
      model: "m1",
      usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
      at: Date.now(),
    });
    const rows = await usage.report({ conversationId: "c1", groupBy: ["user"] });
    expect(rows).toEqual([expect.objectContaining({ user: "alice", totalTokens: 15 })]);
  });

  it("takes the user and workflow from the call's run once it is stored (a run not found yet is asked again)", async () => {
    const recorder = new UsageRecorder(usage, new RunFactsLookup(storage.runs), silentLogger);
    const call = (at: number) => ({ caller: { runId: "r-late", nodeId: "ask" }, profileId: "p1", model: "m1", usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 }, at });
    await recorder.record(call(1));
    const workflow = WorkflowSchema.parse({ id: "w-late", name: "Late", nodes: [], edges: [] });
    await storage.runs.create({ id: "r-late", workflowId: "w-late", workflowRevision: 1, status: "queued", inputs: {}, outputs: {}, createdAt: 2, createdBy: "bob" }, workflow);
    await recorder.record(call(3));
    const rows = await usage.report({ runId: "r-late", groupBy: ["user", "workflow"] });
    expect(rows.map((r) => [r.user, r.workflow, r.calls]).sort()).toEqual(
      [
        ["bob", "w-late", 1],
        [null, null, 1],
      ].sort(),
    );
  });
});
