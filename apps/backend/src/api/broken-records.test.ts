import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import type { Logger } from "@weft/types";
import { DATABASE_FILE } from "../testing/storage.ts";
import { openDatabase } from "../storage/database.ts";
import { startTestServer, templateWorkflow, type TestServer } from "../testing/test-server.ts";
import { z } from "zod";
import { ErrorBodySchema } from "../testing/error-body.ts";

/** The records a list left out, each kept whole (loose) to be compared as it came. */
const SkippedSchema = z.array(z.looseObject({ id: z.string() })).optional();
/** GET /api/workflows: the readable workflows, and the stored ones that did not read. */
const WorkflowListAnswer = z.object({ workflows: z.array(z.object({ id: z.string() })), skipped: SkippedSchema });

const warnings: string[] = [];
const logger: Logger = { debug: () => {}, info: () => {}, warn: (m, f) => void warnings.push(`${m} ${JSON.stringify(f ?? {})}`), error: () => {}, child: () => logger };

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ logger });
});
afterAll(() => t.stop());

/** Rows written behind the API's back, as a crash, an old version or a hand edit could leave them. */
function writeRows(table: string, rows: [id: string, data: string][]): void {
  // With the server's settings (a busy timeout above all): the server writes to the same file meanwhile.
  const db = openDatabase(join(t.dataDir, DATABASE_FILE));
  try {
    const insert = db.query(`INSERT INTO ${table} (id, name, revision, data, created_at, updated_at) VALUES (?, ?, 1, ?, 1, 1)`);
    for (const [id, data] of rows) insert.run(id, id, data);
  } finally {
    db.close();
  }
}

const deep = (levels: number) => '{"a":'.repeat(levels) + "1" + "}".repeat(levels);

describe("a stored record that does not read never breaks a list", () => {
  it("workflows: a broken row is left out and reported, the others listed (also one 1,500 levels deep, too deep for SQLite's JSON functions)", async () => {
    expect((await t.call("POST", "/api/workflows", { workflow: templateWorkflow("good") })).status).toBe(201);
    writeRows("workflows", [
      ["broken", "{not json"],
      ["deep", `{"id":"deep","name":"Deep","nodes":[{"id":"n","type":"core:const-json","config":{"value":${deep(1500)}}}],"edges":[]}`],
    ]);
    const res = await t.call("GET", "/api/workflows");
    expect(res.status).toBe(200);
    const listed = WorkflowListAnswer.parse(res.body);
    // The list reads summary columns; a row written without them is decoded whole once, as a GET would.
    expect(listed.workflows.map((w) => w.id)).toEqual(["deep", "good"]);
    expect(listed.skipped?.map((s) => s.id)).toEqual(["broken"]);
    expect(listed.skipped?.[0]).toMatchObject({ code: "STORED_RECORD_INVALID", message: expect.stringMatching(/Fix or delete it/) });
    expect(warnings.some((w) => w.includes("left out of a list") && w.includes('"broken"'))).toBe(true);
    // The record itself still says what is wrong, and can be deleted to clear it.
    expect(ErrorBodySchema.parse((await t.call("GET", "/api/workflows/broken")).body).error.code).toBe("STORED_RECORD_INVALID");
    expect((await t.call("DELETE", "/api/workflows/broken")).status).toBe(200);
    expect(WorkflowListAnswer.parse((await t.call("GET", "/api/workflows")).body).skipped).toBeUndefined();
  });

  it("agents and scenes: the same", async () => {
    expect((await t.call("POST", "/api/agents", { id: "helper", name: "Helper", deliberationWorkflowId: "good" })).status).toBe(201);
    expect((await t.call("POST", "/api/scenes", { id: "room", name: "Room", agents: [{ instanceId: "h", profileId: "helper" }] })).status).toBe(201);
    writeRows("agent_profiles", [["broken-agent", "[]"]]);
    writeRows("scenes", [["broken-scene", '{"id":"broken-scene"}']]);
    for (const [path, key, good, bad] of [
      ["/api/agents", "agents", "helper", "broken-agent"],
      ["/api/scenes", "scenes", "room", "broken-scene"],
    ]) {
      const res = await t.call("GET", path);
      expect(res.status).toBe(200);
      const listed = z.looseObject({ skipped: SkippedSchema }).parse(res.body);
      expect(
        z
          .array(z.object({ id: z.string() }))
          .parse(listed[key])
          .map((d) => d.id),
      ).toEqual([good]);
      expect(listed.skipped).toEqual([{ id: bad, code: "STORED_RECORD_INVALID", message: expect.stringContaining(`"${bad}"`) }]);
    }
  });

  it("answers without `skipped` when every record reads", async () => {
    const fresh = await startTestServer();
    try {
      const res = await fresh.call("GET", "/api/workflows");
      expect(res.status).toBe(200);
      expect(WorkflowListAnswer.parse(res.body).skipped).toBeUndefined();
    } finally {
      await fresh.stop();
    }
  });
});
