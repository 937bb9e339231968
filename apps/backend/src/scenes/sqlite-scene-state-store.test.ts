import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SceneLogEntry, SceneRuntimeState } from "@weft/types";
import { openDatabase } from "../storage/database.ts";
import { runMigrations } from "../storage/migrations.ts";
import { tempDir } from "../testing/test-server.ts";
import { SqliteSceneStateStore } from "./sqlite-scene-state-store.ts";

const state = (total: number, status: SceneRuntimeState["status"] = "running"): SceneRuntimeState => ({
  version: 1,
  sceneId: "s1",
  sceneRevision: 0,
  status,
  world: { document: { total }, seq: total, history: [] },
  privateStates: { ann: {} },
  mailboxes: { ann: { queue: [], inFlight: null, delivered: 0, dropped: 0, coalesced: 0 } },
  budget: { limit: 10, used: 0 },
  timers: [],
  counters: { trigger: 0, event: 0, log: 0, stream: 0 },
  savedAt: total,
});
const entry = (seq: number, status: "running" | "paused" = "running"): SceneLogEntry => ({ seq, ts: 1, kind: "status", status });

function open() {
  const db = openDatabase(join(tempDir("weft-scene-store-"), "weft.sqlite"));
  runMigrations(db);
  return { db, store: new SqliteSceneStateStore(db) };
}

describe("SqliteSceneStateStore", () => {
  it("replaces the state, appends the log once per number, and forgets a scene on clear", async () => {
    const { db, store } = open();
    await store.saveState(state(1));
    await store.saveState(state(2, "paused"));
    expect((await store.loadState("s1"))?.world.document).toEqual({ total: 2 });
    expect(await store.savedStatuses()).toEqual([{ sceneId: "s1", status: "paused" }]);
    await store.appendLog("s1", [entry(0), entry(1)]);
    // A retried append after a partial failure: entries already stored keep their first version.
    await store.appendLog("s1", [entry(1, "paused"), entry(2)]);
    expect((await store.readLog("s1")).map((e) => [e.seq, e.kind === "status" && e.status])).toEqual([[0, "running"], [1, "running"], [2, "running"]]);
    expect((await store.readLog("s1", 2)).map((e) => e.seq)).toEqual([2]);
    await store.saveSession("s1", { sessionId: "x", startedAt: 1, conversations: { ann: "c1" } });
    await store.clear("s1");
    expect(await store.loadState("s1")).toBeUndefined();
    expect(await store.readLog("s1")).toEqual([]);
    expect((await store.loadSession("s1"))?.conversations).toEqual({ ann: "c1" });
    db.close();
  });

  it("ignores writes once frozen, and reports a damaged row without touching it", async () => {
    const { db, store } = open();
    await store.saveState(state(1));
    store.freeze();
    await store.saveState(state(9));
    await store.appendLog("s1", [entry(0)]);
    expect((await store.loadState("s1"))?.world.document).toEqual({ total: 1 });
    expect(await store.readLog("s1")).toEqual([]);

    db.run("UPDATE scene_states SET data = ? WHERE scene_id = 's1'", [JSON.stringify({ ...state(1), budget: { limit: "ten" } })]);
    await expect(store.loadState("s1")).rejects.toThrow(/state of scene "s1" does not fit its format at budget\.limit/);
    expect((db.query("SELECT data FROM scene_states").get() as { data: string }).data).toContain('"ten"');
    db.close();
  });
});
