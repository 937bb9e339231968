import { describe, expect, it } from "vitest";
import type { MailboxState, SceneLogEntry, SceneRuntimeState, WorldChange } from "@weft/types";
import { storageOpener, type StorageHarness } from "../testing/storage-contract/harness.ts";
import { requireSqlite, type Storage } from "../testing/storage.ts";
import { SceneStore } from "./scene-store.ts";

export const sceneState = (total: number, status: SceneRuntimeState["status"] = "running", sceneId = "s1"): SceneRuntimeState => ({
  version: 1,
  sceneId,
  sceneRevision: 0,
  status,
  world: { document: { total }, seq: total, history: [] },
  privateStates: { ann: {} },
  mailboxes: { ann: { queue: [], inFlight: null, delivered: 0, dropped: 0, coalesced: 0 } },
  budget: { limit: 10, used: 0 },
  timers: [],
  counters: { trigger: 0, event: 0, log: 0, stream: 0 },
  runningMs: 0,
  savedAt: total,
});
export const logEntry = (seq: number, status: "running" | "paused" = "running"): SceneLogEntry => ({ seq, ts: 1, kind: "status", status });

export const mailbox = (delivered: number, queued: string[] = []): MailboxState => ({
  queue: queued.map((id) => ({ id, at: 1, coalesced: 0, kind: "user", text: `hello ${id}`, to: "all" })),
  inFlight: null,
  delivered,
  dropped: 0,
  coalesced: 0,
});
export const change = (seq: number): WorldChange => ({ seq, op: "set", path: "total", after: seq, ts: seq });

/**
 * The next state as the runtime's snapshots give it: the objects of parts not changed are those of
 * `from` (the store tells what changed by identity), world changes appended and the oldest dropped.
 */
export function nextState(from: SceneRuntimeState, changed: Record<string, MailboxState | undefined>, changes: WorldChange[] = [], keep = 3): SceneRuntimeState {
  const mailboxes = { ...from.mailboxes };
  for (const [id, m] of Object.entries(changed)) {
    if (m) mailboxes[id] = m;
    else delete mailboxes[id];
  }
  const history = [...from.world.history, ...changes].slice(-keep);
  const seq = history.at(-1)?.seq ?? from.world.seq;
  return { ...from, world: { document: { total: seq }, seq, history }, mailboxes, savedAt: from.savedAt + 1 };
}

/** A state row as stores wrote it before the state was saved in parts: the whole state in `data`. */
async function storeWholeRow(storage: Storage, state: SceneRuntimeState): Promise<void> {
  const { sql } = storage;
  const args = [state.sceneId, state.status, JSON.stringify(state), state.savedAt];
  switch (sql.engine) {
    case "sqlite":
      requireSqlite(sql, "test").db.run("INSERT INTO scene_states (scene_id, status, data, saved_at) VALUES (?, ?, ?, ?)", args);
      return;
    case "postgres":
      await sql.current().unsafe("INSERT INTO scene_states (scene_id, status, data, saved_at) VALUES ($1, $2, $3, $4)", args);
      return;
    default: {
      const never: never = sql;
      return never;
    }
  }
}

/** What the scene store must do on every engine. */
export function sceneStoreContract(harness: StorageHarness): void {
  describe(`scene store contract (${harness.engine})`, () => {
    const { fresh, database } = storageOpener(harness);

    it("replaces the state, appends the log once per number, reads it by range, and clear keeps the session", async () => {
      const store = new SceneStore(await fresh());
      expect(await store.loadState("s1")).toBeUndefined();
      await store.saveState(sceneState(1));
      await store.saveState(sceneState(2, "paused"));
      expect((await store.loadState("s1"))?.world.document).toEqual({ total: 2 });
      expect(await store.savedStatuses()).toEqual([{ sceneId: "s1", status: "paused" }]);
      await store.appendLog("s1", [logEntry(0), logEntry(1)]);
      // A retried append after a partial failure: entries already stored keep their first version.
      await store.appendLog("s1", [logEntry(1, "paused"), logEntry(2)]);
      expect((await store.readLog("s1")).map((e) => [e.seq, e.kind === "status" && e.status])).toEqual([
        [0, "running"],
        [1, "running"],
        [2, "running"],
      ]);
      expect((await store.readLog("s1", 2)).map((e) => e.seq)).toEqual([2]);
      expect((await store.readLog("s1", 1, 1)).map((e) => e.seq)).toEqual([1]);
      await store.saveSession("s1", { sessionId: "x", startedAt: 1, conversations: { ann: "c1" } });
      await store.saveSession("s1", { sessionId: "y", startedAt: 2, conversations: { ann: "c2" } });
      await store.clear("s1");
      expect(await store.loadState("s1")).toBeUndefined();
      expect(await store.readLog("s1")).toEqual([]);
      expect(await store.loadSession("s1")).toEqual({ sessionId: "y", startedAt: 2, conversations: { ann: "c2" } });
    });

    it("commits log entries with their state, joins the caller's transaction, and stores nothing when it rolls back", async () => {
      const storage = await fresh();
      const store = new SceneStore(storage);
      await store.commit("s1", [logEntry(0), logEntry(1)], sceneState(2));
      await expect(
        storage.transaction(async () => {
          await store.commit("s1", [logEntry(2)], sceneState(3));
          await store.appendLog("s1", [logEntry(3)]);
          throw new Error("the outer work failed");
        }),
      ).rejects.toThrow("the outer work failed");
      expect((await store.loadState("s1"))?.world.document).toEqual({ total: 2 });
      expect((await store.readLog("s1")).map((e) => e.seq)).toEqual([0, 1]);
      // A long batch (one busy interval of a big scene) goes in whole.
      await store.commit(
        "s1",
        Array.from({ length: 2500 }, (_, i) => logEntry(i + 2)),
        sceneState(4),
      );
      expect(await store.readLog("s1")).toHaveLength(2502);
    });

    it("ignores writes once frozen (shutdown), and forgets a deleted scene's state, log and session, only that scene's", async () => {
      const store = new SceneStore(await fresh());
      for (const id of ["s1", "s2"]) {
        await store.saveState(sceneState(1, "running", id));
        await store.appendLog(id, [logEntry(0)]);
        await store.saveSession(id, { sessionId: `x-${id}`, startedAt: 1, conversations: {} });
      }
      await store.forget("s1");
      expect([await store.loadState("s1"), await store.loadSession("s1"), await store.readLog("s1")]).toEqual([undefined, undefined, []]);
      expect(await store.savedStatuses()).toEqual([{ sceneId: "s2", status: "running" }]);
      expect((await store.loadSession("s2"))?.sessionId).toBe("x-s2");
      expect(await store.readLog("s2")).toHaveLength(1);
      store.freeze();
      await store.saveState(sceneState(9, "running", "s2"));
      await store.appendLog("s2", [logEntry(1)]);
      await store.commit("s2", [logEntry(1)], sceneState(9, "running", "s2"));
      expect((await store.loadState("s2"))?.world.document).toEqual({ total: 1 });
      expect(await store.readLog("s2")).toHaveLength(1);
    });

    it("redacts stored secrets in states and log entries", async () => {
      const { SecretRedactor } = await import("@weft/types");
      const redactor = new SecretRedactor();
      redactor.set("k", "api key", ["sk-scene-secret-1"]);
      const store = new SceneStore(await fresh(redactor));
      const state = sceneState(1);
      state.privateStates.ann = { key: "sk-scene-secret-1" };
      await store.commit("s1", [{ seq: 0, ts: 1, kind: "private.changed", instanceId: "ann", op: "set", path: "key", after: "sk-scene-secret-1" }], state);
      expect(JSON.stringify(await store.loadState("s1"))).not.toContain("sk-scene-secret-1");
      expect(JSON.stringify(await store.readLog("s1"))).not.toContain("sk-scene-secret-1");
      // The parts a later save writes alone: a mailbox's queued trigger and a world change.
      const secretChange: WorldChange = { seq: 2, op: "set", path: "note", after: "sk-scene-secret-1", ts: 2 };
      const later = nextState(state, { ann: mailbox(1, ["sk-scene-secret-1"]) }, [secretChange]);
      await store.saveState(later);
      const loaded = await store.loadState("s1");
      expect(loaded?.mailboxes.ann.queue).toHaveLength(1);
      expect(loaded?.world.history.map((c) => c.seq)).toEqual([2]);
      expect(JSON.stringify(loaded)).not.toContain("sk-scene-secret-1");
    });

    describe("the state saved in parts", () => {
      const first = (): SceneRuntimeState => ({ ...sceneState(1), mailboxes: { ann: mailbox(0), bob: mailbox(0, ["t1"]) }, world: { document: { total: 1 }, seq: 1, history: [change(1)] } });

      it("writes what changed and loads the whole new state: a mailbox changed, one gone, one new, world changes appended and trimmed", async () => {
        const store = new SceneStore(await fresh());
        const one = first();
        await store.saveState(one);
        expect(await store.loadState("s1")).toEqual(one);
        const two = nextState(one, { bob: mailbox(1) }, [change(2), change(3)]);
        await store.commit("s1", [logEntry(0)], two);
        expect(await store.loadState("s1")).toEqual(two);
        const three = nextState(two, { bob: undefined, cat: mailbox(0, ["t2", "t3"]) }, [change(4), change(5)]);
        await store.saveState(three);
        expect(await store.loadState("s1")).toEqual(three);
        expect((await store.loadState("s1"))?.world.history.map((c) => c.seq)).toEqual([3, 4, 5]);
        // More changes than the state keeps came between two saves: none of the older ones stays.
        const four = nextState(three, {}, [6, 7, 8, 9].map(change));
        await store.saveState(four);
        expect((await store.loadState("s1"))?.world.history.map((c) => c.seq)).toEqual([7, 8, 9]);
        expect(await store.savedStatuses()).toEqual([{ sceneId: "s1", status: "running" }]);
      });

      it("loses nothing when a commit rolled back: the next save writes what the database lacks", async () => {
        const storage = await fresh();
        const store = new SceneStore(storage);
        const one = first();
        await store.commit("s1", [logEntry(0)], one);
        const two = nextState(one, { bob: mailbox(5, ["t9"]) }, [change(2)]);
        await expect(
          storage.transaction(async () => {
            await store.commit("s1", [logEntry(1)], two);
            throw new Error("the journal's write failed");
          }),
        ).rejects.toThrow("the journal's write failed");
        expect(await store.loadState("s1")).toEqual(one);
        // Only ann differs from the state that rolled back: bob and world change 2 must be written all the same.
        const three = nextState(two, { ann: mailbox(1) });
        await store.commit("s1", [logEntry(1)], three);
        expect(await store.loadState("s1")).toEqual(three);
        expect((await store.loadState("s1"))?.mailboxes.bob).toEqual(mailbox(5, ["t9"]));
      });

      it("writes the whole state when another process wrote the scene since, or it was cleared", async () => {
        const db = await database();
        const [mine, theirs] = [new SceneStore(await db.open()), new SceneStore(await db.open())];
        const one = first();
        await mine.saveState(one);
        await theirs.saveState(nextState(one, { bob: mailbox(7) }, [change(2)]));
        const three = nextState(one, { ann: mailbox(1) });
        await mine.saveState(three);
        expect(await theirs.loadState("s1")).toEqual(three);
        await theirs.clear("s1");
        const four = nextState(three, { ann: mailbox(2) });
        await mine.saveState(four);
        expect(await theirs.loadState("s1")).toEqual(four);
      });

      it("loads a state stored whole in one row (before the parts), and saves it in parts from then on", async () => {
        const storage = await fresh();
        const store = new SceneStore(storage);
        const old = first();
        await storeWholeRow(storage, old);
        expect(await store.loadState("s1")).toEqual(old);
        expect(await store.savedStatuses()).toEqual([{ sceneId: "s1", status: "running" }]);
        const two = nextState(old, { bob: mailbox(1) }, [change(2)]);
        await store.saveState(two);
        const three = nextState(two, { ann: mailbox(3) }, [change(3)]);
        await store.saveState(three);
        expect(await store.loadState("s1")).toEqual(three);
        await store.forget("s1");
        expect(await store.loadState("s1")).toBeUndefined();
      });
    });
  });
}
