import { describe, expect, it } from "vitest";
import type { SceneLogEntry, SceneRuntimeState } from "@weft/types";
import { storageOpener, type StorageHarness } from "../storage/contract/harness.ts";
import { createSceneStore } from "./create-scene-store.ts";

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
  savedAt: total,
});
export const logEntry = (seq: number, status: "running" | "paused" = "running"): SceneLogEntry => ({ seq, ts: 1, kind: "status", status });

/** What the scene store must do on every engine. */
export function sceneStoreContract(harness: StorageHarness): void {
  describe(`scene store contract (${harness.engine})`, () => {
    const { fresh } = storageOpener(harness);

    it("replaces the state, appends the log once per number, reads it by range, and clear keeps the session", async () => {
      const store = createSceneStore(await fresh());
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
      const store = createSceneStore(storage);
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
      const store = createSceneStore(await fresh());
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
      const store = createSceneStore(await fresh(redactor));
      const state = sceneState(1);
      state.privateStates.ann = { key: "sk-scene-secret-1" };
      await store.commit("s1", [{ seq: 0, ts: 1, kind: "private.changed", instanceId: "ann", op: "set", path: "key", after: "sk-scene-secret-1" }], state);
      expect(JSON.stringify(await store.loadState("s1"))).not.toContain("sk-scene-secret-1");
      expect(JSON.stringify(await store.readLog("s1"))).not.toContain("sk-scene-secret-1");
    });
  });
}
