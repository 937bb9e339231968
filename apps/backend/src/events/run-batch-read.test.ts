import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freezeWorkflow, pinOutputs } from "@weft/agent-runtime";
import { WorkflowSchema, type Workflow } from "@weft/types";
import { openSqliteStorage, openStorage, type Storage } from "../testing/storage.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";
import { templateWorkflow, tempDir } from "../testing/test-server.ts";
import { hookWorkflow } from "../testing/webhooks.ts";
import { MIGRATIONS } from "../schema.ts";
import type { RunRecord } from "./run-repository.ts";

const record = (id: string, workflowId: string, over: Partial<RunRecord> = {}): RunRecord => ({
  id,
  workflowId,
  workflowRevision: 1,
  status: "queued",
  inputs: { topic: id },
  outputs: {},
  createdAt: Date.now(),
  ...over,
});

/** A queue batch reads its runs as it begins: one query answering what `get` and `getWorkflow` answer for each. */
describe.each(["sqlite", "postgres"] as const)("runs read with their workflows, on %s", (engine) => {
  let pg: TestPostgres | undefined;
  let storage: Storage;

  beforeAll(async () => {
    const dataDir = tempDir();
    if (engine === "postgres") {
      pg = await startPostgres();
      storage = await openStorage({ dataDir, databaseUrl: await createTestDatabase(pg.url), migrations: MIGRATIONS });
    } else {
      storage = await openSqliteStorage(dataDir);
    }
  });
  afterAll(async () => {
    await storage.close();
    await pg?.stop();
  });

  it("answer each stored run's record and workflow as get and getWorkflow do (pinned and unkept ones too), one workflow object per snapshot text", async () => {
    const notes: Workflow = WorkflowSchema.parse(templateWorkflow("notes"));
    const kept = freezeWorkflow(WorkflowSchema.parse(hookWorkflow("hooked", { path: "in" })));
    const outputs = { body: { name: "Ada" }, method: "POST" };
    await storage.runs.create(record("case-1", "notes", { createdBy: "alice" }), notes);
    await storage.runs.create(record("case-2", "notes", { status: "completed", startedAt: 5, finishedAt: 9, outputs: { text: "done" } }), notes);
    await storage.runs.create(record("hook-1", "hooked"), pinOutputs(kept, "hook", outputs), { base: kept, nodeId: "hook", outputs });
    await storage.runs.create(record("tool-1", "tool"), undefined);

    const ids = ["case-1", "case-2", "hook-1", "tool-1", "never-stored"];
    const read = await storage.runs.getWithWorkflows(ids);
    expect([...read.keys()].sort()).toEqual(["case-1", "case-2", "hook-1", "tool-1"]);
    for (const id of ids.slice(0, 4)) {
      expect(read.get(id)?.record).toEqual(await storage.runs.get(id));
      expect(read.get(id)?.workflow).toEqual(await storage.runs.getWorkflow(id));
    }
    expect(read.get("hook-1")?.workflow?.nodes.find((n) => n.id === "hook")?.pinned).toEqual(outputs);
    expect(read.get("tool-1")?.workflow).toBeUndefined();
    // The batch compiles a graph once for the runs that share it.
    expect(read.get("case-1")?.workflow).toBe(read.get("case-2")?.workflow);
  });
});
