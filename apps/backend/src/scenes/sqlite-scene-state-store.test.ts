import { describe, expect, it } from "vitest";
import type { SceneRuntimeState } from "@weft/types";
import { MIGRATIONS } from "../schema.ts";
import { openSqliteStorage, requireSqlite } from "../testing/storage.ts";
import { tempDir } from "../testing/test-server.ts";
import { change, logEntry, mailbox, nextState, sceneState } from "./scene-store.contract.ts";
import { SceneStore } from "./scene-store.ts";

/** The store on the server storage's own connection, as the server builds it. */
async function open() {
  const storage = await openSqliteStorage(tempDir("weft-scene-store-"), undefined, MIGRATIONS);
  return { db: requireSqlite(storage.sql, "test").db, storage, store: new SceneStore(storage) };
}

/** What only SQLite shows (a row damaged in the file, a trigger refusing a write); the rest is `sceneStoreContract`. */
describe("SqliteSceneStateStore", () => {
  it("ignores writes once frozen, and reports a damaged row without touching it", async () => {
    const { db, storage, store } = await open();
    await store.saveState(sceneState(1));
    store.freeze();
    await store.saveState(sceneState(9));
    await store.appendLog("s1", [logEntry(0)]);
    expect((await store.loadState("s1"))?.world.document).toEqual({ total: 1 });
    expect(await store.readLog("s1")).toEqual([]);

    db.run("UPDATE scene_states SET data = ? WHERE scene_id = 's1'", [JSON.stringify({ ...sceneState(1), budget: { limit: "ten" } })]);
    await expect(store.loadState("s1")).rejects.toThrow(/state of scene "s1" does not fit its format at budget\.limit/);
    expect((db.query("SELECT data FROM scene_states").get() as { data: string }).data).toContain('"ten"');
    // The storage closes its checkpointer first: closing the connection under it left a checkpoint writing to a closed file.
    await storage.close();
  });

  it("commits log entries and the state they lead to together: a failing state write stores neither", async () => {
    const { db, storage, store } = await open();
    await store.commit("s1", [logEntry(0), logEntry(1)], sceneState(2));
    expect((await store.loadState("s1"))?.world.document).toEqual({ total: 2 });
    expect((await store.readLog("s1")).map((e) => e.seq)).toEqual([0, 1]);

    // The state write fails (a trigger refuses it) after the log entries went in: both roll back.
    db.run("CREATE TRIGGER refuse_state BEFORE UPDATE ON scene_states BEGIN SELECT RAISE(ABORT, 'disk full'); END");
    await expect(store.commit("s1", [logEntry(2)], sceneState(3))).rejects.toThrow("disk full");
    expect((await store.loadState("s1"))?.world.document).toEqual({ total: 2 });
    expect((await store.readLog("s1")).map((e) => e.seq)).toEqual([0, 1]);
    await storage.close();
  });

  it("a save writes only the parts that changed: one mailbox row, the new world change", async () => {
    const { db, storage, store } = await open();
    db.run("CREATE TABLE written (what TEXT NOT NULL)");
    db.run("CREATE TRIGGER part_in AFTER INSERT ON scene_state_parts BEGIN INSERT INTO written VALUES ('mailbox ' || NEW.key); END");
    db.run("CREATE TRIGGER part_up AFTER UPDATE ON scene_state_parts BEGIN INSERT INTO written VALUES ('mailbox ' || NEW.key); END");
    db.run("CREATE TRIGGER change_in AFTER INSERT ON scene_world_changes BEGIN INSERT INTO written VALUES ('change ' || NEW.seq); END");
    const written = () => (db.query("SELECT what FROM written ORDER BY rowid").all() as Array<{ what: string }>).map((r) => r.what);

    const one: SceneRuntimeState = { ...sceneState(1), mailboxes: { ann: mailbox(0), bob: mailbox(0), cat: mailbox(0) } };
    await store.saveState(one);
    expect(written()).toEqual(["mailbox ann", "mailbox bob", "mailbox cat"]);
    db.run("DELETE FROM written");
    const two = nextState(one, { bob: mailbox(1, ["t1"]) }, [change(1)]);
    await store.commit("s1", [logEntry(0)], two);
    expect(written()).toEqual(["mailbox bob", "change 1"]);
    expect(await store.loadState("s1")).toEqual(two);
    await storage.close();
  });
});
