import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../schema.ts";
import { openStorage, requireSqlite, type Storage } from "../../testing/storage.ts";
import { removeDir, startTestServer, templateWorkflow, waitForRun, type TestServer } from "../../testing/test-server.ts";
import { StartedRunSchema } from "../../testing/answers.ts";
import { compact } from "./compact.ts";
import { loadRetentionPolicy, saveRetentionPolicy } from "./retention-settings.ts";

const DAY = 24 * 60 * 60 * 1000;
let dataDir: string;
/** Run ids by workflow, oldest first. */
const runs: Record<string, string[]> = { notes: [], other: [] };

async function startRun(t: TestServer, workflowId: string, topic: string): Promise<string> {
  const started = StartedRunSchema.parse((await t.call("POST", `/api/workflows/${workflowId}/runs`, { inputs: { topic } })).body);
  await waitForRun(t, started.runId);
  return started.runId;
}

/** Real runs through a real server, then the server stops and the test opens its SQLite file as `weft compact` does. */
beforeAll(async () => {
  const t = await startTestServer({ demoLlm: false });
  dataDir = t.dataDir;
  await t.call("POST", "/api/workflows", { workflow: templateWorkflow("notes") });
  await t.call("POST", "/api/workflows", { workflow: templateWorkflow("other") });
  for (let i = 0; i < 4; i++) runs.notes.push(await startRun(t, "notes", `topic ${i}`));
  for (let i = 0; i < 2; i++) runs.other.push(await startRun(t, "other", `other ${i}`));
  await t.stop();
});
afterAll(() => removeDir(dataDir));

function count(db: Database, sql: string, ...params: string[]): number {
  return (db.query(sql).get(...params) as { n: number }).n;
}

function recordsOf(db: Database, runId: string): { runs: number; observations: number; events: number } {
  return {
    runs: count(db, "SELECT count(*) AS n FROM runs WHERE id = ?", runId),
    observations: count(db, "SELECT count(*) AS n FROM observations WHERE run_id = ?", runId),
    events: count(db, "SELECT count(*) AS n FROM events WHERE stream_id = ?", runId),
  };
}

/** A scene at rest (`stopped`) or live (`running`), saved `ageDays` ago, with a 3-entry session log and 3 stream events. */
function seedScene(db: Database, sceneId: string, status: "stopped" | "running", ageDays: number, now: number): void {
  const at = now - ageDays * DAY;
  db.query("INSERT INTO scene_states (scene_id, status, data, saved_at) VALUES (?, ?, '{}', ?)").run(sceneId, status, at);
  for (let seq = 0; seq < 3; seq++) {
    db.query("INSERT INTO scene_log (scene_id, seq, kind, data) VALUES (?, ?, 'status', '{}')").run(sceneId, seq);
    db.query("INSERT INTO events (stream_id, seq, type, data) VALUES (?, ?, 'scene.log', ?)").run(sceneId, seq, JSON.stringify({ type: "scene.log", ts: at - 1000 + seq }));
  }
}

describe("weft compact on SQLite", () => {
  let storage: Storage;
  let db: Database;
  const now = Date.now();

  beforeAll(async () => {
    storage = await openStorage({ dataDir, migrations: MIGRATIONS });
    db = requireSqlite(storage.sql, "compact test").db;
    // The two oldest runs of "notes" were created 40 days ago.
    for (const id of runs.notes.slice(0, 2)) db.query("UPDATE runs SET created_at = ? WHERE id = ?").run(now - 40 * DAY, id);
    seedScene(db, "quiet", "stopped", 20, now);
    seedScene(db, "busy", "running", 20, now);
    seedScene(db, "recent", "stopped", 1, now);
  });
  afterAll(() => storage.close());

  it("finds the runs at rest beyond the limits on a dry run, and removes nothing", async () => {
    const report = await compact(storage.sql, { runsMaxAgeDays: 30 }, { now, dryRun: true });
    expect(report).toMatchObject({ engine: "sqlite", dryRun: true, runs: 2 });
    expect(report.observations).toBeGreaterThanOrEqual(2 * 3);
    for (const id of runs.notes) expect(recordsOf(db, id).runs).toBe(1);
  });

  it("removes finished runs past the age limit with their observations and events; newer runs and every document stay", async () => {
    const [oldA, oldB, ...newer] = runs.notes;
    const kept = [...newer, ...runs.other].map((id) => recordsOf(db, id));
    expect(recordsOf(db, oldA).observations).toBe(3);
    expect(recordsOf(db, oldA).events).toBeGreaterThan(3);
    const workflowsBefore = count(db, "SELECT count(*) AS n FROM workflows");
    const oldEvents = recordsOf(db, oldA).events + recordsOf(db, oldB).events;

    const report = await compact(storage.sql, { runsMaxAgeDays: 30 }, { now });

    expect(report).toMatchObject({ dryRun: false, runs: 2, observations: 6, sceneLogEntries: 0, sceneEvents: 0 });
    expect(report.runEvents).toBe(oldEvents);
    for (const id of [oldA, oldB]) expect(recordsOf(db, id)).toEqual({ runs: 0, observations: 0, events: 0 });
    expect([...newer, ...runs.other].map((id) => recordsOf(db, id))).toEqual(kept);
    expect(count(db, "SELECT count(*) AS n FROM workflows")).toBe(workflowsBefore);
    expect(report.bytesAfter).toBeGreaterThan(0);
    expect(report.bytesAfter).toBeLessThanOrEqual(report.bytesBefore ?? 0);
  });

  it("keeps the newest N runs of each workflow", async () => {
    const report = await compact(storage.sql, { runsPerWorkflow: 1 }, { now });
    expect(report.runs).toBe(2);
    // notes had 2 left (the newest stays), other had 2 (the newest stays).
    expect(recordsOf(db, runs.notes[3]).runs).toBe(1);
    expect(recordsOf(db, runs.notes[2]).runs).toBe(0);
    expect(recordsOf(db, runs.other[1]).runs).toBe(1);
    expect(recordsOf(db, runs.other[0])).toEqual({ runs: 0, observations: 0, events: 0 });
  });

  it("removes the session log of scenes at rest past the limit, and old scene events but each stream's last one", async () => {
    const report = await compact(storage.sql, { sceneLogMaxAgeDays: 7 }, { now });
    expect(report).toMatchObject({ sceneLogs: 1, sceneLogEntries: 3, runs: 0 });
    expect(count(db, "SELECT count(*) AS n FROM scene_log WHERE scene_id = ?", "quiet")).toBe(0);
    // A running scene resumes from its log: kept, however old.
    expect(count(db, "SELECT count(*) AS n FROM scene_log WHERE scene_id = ?", "busy")).toBe(3);
    expect(count(db, "SELECT count(*) AS n FROM scene_log WHERE scene_id = ?", "recent")).toBe(3);
    // Old events of both old scenes went, but the last of each stream stays so its numbering goes on.
    expect(report.sceneEvents).toBe(4);
    expect(db.query("SELECT seq FROM events WHERE stream_id = ?").all("quiet")).toEqual([{ seq: 2 }]);
    expect(db.query("SELECT seq FROM events WHERE stream_id = ?").all("busy")).toEqual([{ seq: 2 }]);
    expect(count(db, "SELECT count(*) AS n FROM events WHERE stream_id = ?", "recent")).toBe(3);
    // The scenes' saved states (their final world) stay viewable.
    expect(count(db, "SELECT count(*) AS n FROM scene_states")).toBe(3);
  });

  it("keeps each document's newest N versions and every version a remaining run ran", async () => {
    const stored = await storage.workflows.get("notes");
    if (!stored) throw new Error("notes is stored");
    let wf = stored.document;
    for (let n = 1; n <= 4; n++) {
      const saved = await storage.workflows.update({ ...wf, description: `edit ${n}` }, wf.revision);
      if (saved.kind !== "updated") throw new Error(`save ${n}: ${saved.kind}`);
      wf = saved.record.document;
    }
    // The run left of "notes" (the previous test kept its newest) ran version 1, before the edits.
    expect(db.query("SELECT workflow_version AS v FROM runs WHERE id = ?").get(runs.notes[3])).toEqual({ v: 1 });
    const report = await compact(storage.sql, { versionsPerDocument: 2 }, { now });
    expect(report.versions).toBe(2);
    expect((await storage.workflows.versions.list("notes", 10)).map((v) => v.number)).toEqual([5, 4, 1]);
    expect((await storage.workflows.versions.get("notes", 1))?.content).toMatchObject({ description: stored.document.description });
    expect((await storage.workflows.versions.list("other", 10)).map((v) => v.number)).toEqual([1]);
    // The removed versions' contents went with them.
    expect(count(db, "SELECT count(*) AS n FROM document_contents WHERE hash NOT IN (SELECT hash FROM document_versions)")).toBe(0);
  });

  it("stores the retention settings, and refuses a policy that does not fit", async () => {
    expect(await loadRetentionPolicy(storage.settings)).toEqual({});
    await saveRetentionPolicy(storage.settings, { runsMaxAgeDays: 14, sceneLogMaxAgeDays: 30 });
    expect(await loadRetentionPolicy(storage.settings)).toEqual({ runsMaxAgeDays: 14, sceneLogMaxAgeDays: 30 });
    await expect(saveRetentionPolicy(storage.settings, { runsMaxAgeDays: -1 })).rejects.toThrow();
  });
});
