import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { StartedRunSchema, WorkflowAnswerSchema } from "../testing/answers.ts";
import { EventsPageSchema, startTestServer, templateWorkflow, tempDir, waitForRun, type TestServer } from "../testing/test-server.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";
import { DATABASE_FILE, openPostgresStorage } from "../testing/storage.ts";
import { MIGRATIONS } from "../schema.ts";

let cluster: TestPostgres;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await cluster?.stop();
});

describe("the server on PostgreSQL (WEFT_DATABASE_URL)", () => {
  it("stores a workflow, runs it, and serves the run and its events from PostgreSQL, also after a restart", async () => {
    const databaseUrl = await createTestDatabase(cluster.url);
    const dataDir = tempDir();
    let server: TestServer | undefined = await startTestServer({ dataDir, databaseUrl });
    try {
      const created = await server.call("POST", "/api/workflows", { workflow: templateWorkflow("notes") });
      expect(created.status).toBe(201);
      const started = StartedRunSchema.parse((await server.call("POST", "/api/workflows/notes/runs", { inputs: { topic: "twill" } })).body);
      const done = await waitForRun(server, started.runId);
      expect(done.run).toMatchObject({ status: "completed", workflowId: "notes", outputs: { text: "Notes on twill" } });
      const events = EventsPageSchema.parse((await server.call("GET", `/api/runs/${started.runId}/events`)).body).events;
      expect(events[0]).toMatchObject({ type: "run.started", seq: 0 });
      expect(events.at(-1)).toMatchObject({ type: "run.completed" });
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
      await server.stop();
      server = undefined;

      // What the server wrote is in PostgreSQL, and no SQLite file was made.
      expect(existsSync(join(dataDir, DATABASE_FILE))).toBe(false);
      const direct = await openPostgresStorage(databaseUrl, undefined, MIGRATIONS);
      try {
        expect(await direct.runs.get(started.runId)).toMatchObject({ status: "completed", outputs: { text: "Notes on twill" } });
        expect(await direct.events.lastSeq(started.runId)).toBe(events.length - 1);
        expect((await direct.workflows.get("notes"))?.document.revision).toBe(1);
      } finally {
        await direct.close();
      }

      // Another server on the same database (a fresh data folder) sees all of it.
      server = await startTestServer({ dataDir: tempDir(), databaseUrl });
      expect(WorkflowAnswerSchema.parse((await server.call("GET", "/api/workflows/notes")).body).workflow).toMatchObject({ id: "notes", revision: 1 });
      // Two servers saving from the same revision at once: exactly one is stored, the other answers the conflict.
      const other = await startTestServer({ dataDir: tempDir(), databaseUrl });
      try {
        const saves = await Promise.all([server, other].map((s, i) => s.call("PUT", "/api/workflows/notes", { workflow: { ...templateWorkflow("notes"), name: `Saved by ${i}` }, baseRevision: 1 })));
        expect(saves.map((r) => r.status).sort()).toEqual([200, 409]);
        const winner = saves.findIndex((r) => r.status === 200);
        expect(WorkflowAnswerSchema.parse((await other.call("GET", "/api/workflows/notes")).body).workflow).toMatchObject({ name: `Saved by ${winner}`, revision: 2 });
      } finally {
        await other.stop();
      }
      const again = await server.call("GET", `/api/runs/${started.runId}`);
      expect(z.object({ run: z.object({ status: z.string() }) }).parse(again.body).run.status).toBe("completed");
      const list = z.object({ workflows: z.array(z.object({ id: z.string(), nodeCount: z.number(), revision: z.number() })) }).parse((await server.call("GET", "/api/workflows")).body);
      expect(list.workflows).toEqual([expect.objectContaining({ id: "notes", nodeCount: 3, revision: 2 })]);
    } finally {
      await server?.stop();
    }
  });
});
