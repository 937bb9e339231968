import { describe, expect, it } from "vitest";
import type { SceneLogEntry, SceneRuntimeState } from "@weft/types";
import { openSqliteStorage } from "../storage/storage.ts";
import { requireSqlite } from "../storage/sql-handle.ts";
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

/** The store on the server storage's own connection, as the server builds it. */
function open() {
  const storage = openSqliteStorage(tempDir("weft-scene-store-"));
  return { db: requireSqlite(storage.sql, "test").db, storage, store: new SqliteSceneStateStore(storage) };
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
    expect((await store.readLog("s1")).map((e) => [e.seq, e.kind === "status" && e.status])).toEqual([
      [0, "running"],
      [1, "running"],
      [2, "running"],
    ]);
    expect((await store.readLog("s1", 2)).map((e) => e.seq)).toEqual([2]);
    expect((await store.readLog("s1", 1, 1)).map((e) => e.seq)).toEqual([1]);
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

  it("writes on the storage's connection: an append joins the storage's transaction and rolls back with it", async () => {
    const { storage, store } = open();
    await store.appendLog("s1", [entry(0)]);
    await expect(
      storage.transaction(async () => {
        await store.appendLog("s1", [entry(1), entry(2)]);
        throw new Error("the outer work failed");
      }),
    ).rejects.toThrow("the outer work failed");
    expect((await store.readLog("s1")).map((e) => e.seq)).toEqual([0]);
    storage.close();
  });

  it("commits log entries and the state they lead to together: a failing state write stores neither", async () => {
    const { db, storage, store } = open();
    await store.commit("s1", [entry(0), entry(1)], state(2));
    expect((await store.loadState("s1"))?.world.document).toEqual({ total: 2 });
    expect((await store.readLog("s1")).map((e) => e.seq)).toEqual([0, 1]);

    // The state write fails (a trigger refuses it) after the log entries went in: both roll back.
    db.run("CREATE TRIGGER refuse_state BEFORE UPDATE ON scene_states BEGIN SELECT RAISE(ABORT, 'disk full'); END");
    await expect(store.commit("s1", [entry(2)], state(3))).rejects.toThrow("disk full");
    expect((await store.loadState("s1"))?.world.document).toEqual({ total: 2 });
    expect((await store.readLog("s1")).map((e) => e.seq)).toEqual([0, 1]);
    storage.close();
  });

  it("forgets a deleted scene's state, log and session, and only that scene's", async () => {
    const { storage, store } = open();
    for (const id of ["s1", "s2"]) {
      await store.saveState({ ...state(1), sceneId: id });
      await store.appendLog(id, [entry(0)]);
      await store.saveSession(id, { sessionId: `x-${id}`, startedAt: 1, conversations: {} });
    }
    await store.forget("s1");
    expect([await store.loadState("s1"), await store.loadSession("s1"), await store.readLog("s1")]).toEqual([undefined, undefined, []]);
    expect(await store.savedStatuses()).toEqual([{ sceneId: "s2", status: "running" }]);
    expect((await store.loadSession("s2"))?.sessionId).toBe("x-s2");
    expect(await store.readLog("s2")).toHaveLength(1);
    storage.close();
  });
});
