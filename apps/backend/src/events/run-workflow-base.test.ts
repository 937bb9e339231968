import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freezeWorkflow, pinOutputs } from "@weft/agent-runtime";
import { WorkflowSchema, type Workflow } from "@weft/types";
import { openSqliteStorage, openStorage, type Storage } from "../testing/storage.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";
import { tempDir } from "../testing/test-server.ts";
import { hookWorkflow } from "../testing/webhooks.ts";
import { MIGRATIONS } from "../schema.ts";
import type { RunRecord } from "./run-repository.ts";

const base = (): Workflow => freezeWorkflow(WorkflowSchema.parse({ ...hookWorkflow("hooked", { path: "in" }), revision: 3 }));
const record = (id: string): RunRecord => ({ id, workflowId: "hooked", workflowRevision: 3, status: "queued", inputs: {}, outputs: {}, createdAt: Date.now(), workflowVersion: 2 });

/** Stored texts of the runs table's `workflow` column and of the payloads table, as the database holds them. */
async function stored(storage: Storage, runId: string): Promise<{ column: string; payloads: number }> {
  const { sql } = storage;
  switch (sql.engine) {
    case "sqlite": {
      const column = sql.db.query<{ workflow: string }, [string]>("SELECT workflow FROM runs WHERE id = ?").get(runId)?.workflow ?? "";
      const payloads = sql.db.query<{ n: number }, []>("SELECT count(*) AS n FROM payloads").get()?.n ?? 0;
      return { column, payloads };
    }
    case "postgres": {
      const [row] = (await sql.sql`SELECT workflow FROM runs WHERE id = ${runId}`) as { workflow: string }[];
      const [count] = (await sql.sql`SELECT count(*)::int AS n FROM payloads`) as { n: number }[];
      return { column: row?.workflow ?? "", payloads: count?.n ?? 0 };
    }
  }
}

/** A trigger's run stores the kept workflow once and its request; runs created together are each stored or refused alone. */
describe.each(["sqlite", "postgres"] as const)("runs of a kept workflow with a pinned request, on %s", (engine) => {
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

  it("store the workflow once, and read back exactly the graph each run ran, request included", async () => {
    const kept = base();
    const first = { base: kept, nodeId: "hook", outputs: { body: { name: "Ada" }, method: "POST" } };
    const second = { base: kept, nodeId: "hook", outputs: { body: { name: "Grace" }, method: "PUT" } };
    await storage.runs.create(record("run-a"), pinOutputs(kept, "hook", first.outputs), first);
    await storage.runs.create(record("run-b"), pinOutputs(kept, "hook", second.outputs), second);

    const a = await stored(storage, "run-a");
    const b = await stored(storage, "run-b");
    // The rows hold the request, not another copy of the graph; the graph is one payload for both.
    expect(a.column).toContain('"Ada"');
    expect(a.column).not.toContain("core:text-template");
    expect(b.column).not.toContain("core:text-template");
    expect(b.payloads).toBe(1);

    const readA = await storage.runs.getWorkflow("run-a");
    const readB = await storage.runs.getWorkflow("run-b");
    expect(readA).toEqual(JSON.parse(JSON.stringify(pinOutputs(kept, "hook", first.outputs))));
    expect(readB?.nodes.find((n) => n.id === "hook")?.pinned).toEqual(second.outputs);
    expect(readB?.revision).toBe(3);
  });

  it("runs created together are each stored, and one that cannot be stored fails alone", async () => {
    const kept = base();
    const pins = (n: number) => ({ base: kept, nodeId: "hook", outputs: { body: { n } } });
    // run-dup-5 exists already: its second create is refused (primary key), the rest of its batch is stored. (On
    // PostgreSQL the first create is written alone and the eleven that come while it is written together.)
    await storage.runs.create(record("run-dup-5"), undefined);
    const results = await Promise.allSettled(Array.from({ length: 12 }, (_, n) => storage.runs.create(record(`run-dup-${n}`), pinOutputs(kept, "hook", pins(n).outputs), pins(n))));
    expect(results.map((r) => r.status)).toEqual(Array.from({ length: 12 }, (_, n) => (n === 5 ? "rejected" : "fulfilled")));
    for (const n of [0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11]) expect((await storage.runs.getWorkflow(`run-dup-${n}`))?.nodes.find((node) => node.id === "hook")?.pinned).toEqual({ body: { n } });
  });
});
