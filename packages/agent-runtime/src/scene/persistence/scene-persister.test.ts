import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SceneLogEntry, SceneRuntimeState } from "@weft/types";
import { FileSceneStateStore } from "./file-scene-state-store.ts";
import { ScenePersister } from "./scene-persister.ts";

let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "weft-persist-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const stateWith = (total: number): SceneRuntimeState => ({
  version: 1,
  sceneId: "s1",
  sceneRevision: 0,
  status: "running",
  world: { document: { total }, seq: total, history: [] },
  privateStates: {},
  mailboxes: {},
  budget: { limit: 10, used: 0 },
  timers: [],
  counters: { trigger: 0, event: 0, log: total, stream: 0 },
  runningMs: 0,
  savedAt: 1,
});

/**
 * A file where the scene's folder should be: every write of scene "s1" fails (ENOTDIR / EEXIST), even as root.
 * Gives back the function that removes it.
 */
async function blockScene(): Promise<() => Promise<void>> {
  const blocker = join(dir, "s1");
  await writeFile(blocker, "in the way");
  return () => rm(blocker);
}

/** The real store, its writes told apart by how many entries each carried. */
function countingStore(): { inner: FileSceneStateStore; store: FileSceneStateStore; writes: number[] } {
  const inner = new FileSceneStateStore(dir);
  const writes: number[] = [];
  const store = Object.assign(Object.create(inner) as FileSceneStateStore, {
    appendLog: async (sceneId: string, entries: readonly SceneLogEntry[]) => {
      writes.push(entries.length);
      await inner.appendLog(sceneId, entries);
    },
  });
  return { inner, store, writes };
}

describe("ScenePersister", () => {
  it("keeps log entries through a failing store and writes them all, in order, once it works again", async () => {
    const unblock = await blockScene();
    const store = new FileSceneStateStore(dir);
    let total = 0;
    const persister = new ScenePersister(store, "s1", () => stateWith(total));

    for (let seq = 0; seq < 3; seq++) {
      total = seq + 1;
      persister.add({ seq, ts: 1, kind: "status", status: "running" });
    }
    await expect(persister.flush()).rejects.toThrow();

    await unblock();
    total = 4;
    persister.add({ seq: 3, ts: 1, kind: "status", status: "paused" });
    await persister.flush();
    expect((await store.readLog("s1")).map((e) => e.seq)).toEqual([0, 1, 2, 3]);
    expect((await store.loadState("s1"))?.world.document).toEqual({ total: 4 });
  });

  it("saves the latest state after changes made during a save", async () => {
    const store = new FileSceneStateStore(dir);
    let total = 0;
    const persister = new ScenePersister(store, "s1", () => stateWith(total));
    for (let i = 1; i <= 20; i++) {
      total = i;
      persister.add({ seq: i - 1, ts: 1, kind: "status", status: "running" });
    }
    await persister.flush();
    expect((await store.loadState("s1"))?.world.document).toEqual({ total: 20 });
    expect(await store.readLog("s1")).toHaveLength(20);
  });

  it("gathers the changes of an interval into one write of log and state, and flush writes at once", async () => {
    const { inner, store, writes } = countingStore();
    let total = 0;
    const persister = new ScenePersister(store, "s1", () => stateWith(total), undefined, 20);
    for (let i = 1; i <= 50; i++) {
      total = i;
      persister.add({ seq: i - 1, ts: 1, kind: "status", status: "running" });
    }
    expect(writes).toEqual([]);
    while ((await inner.loadState("s1")) === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(writes).toEqual([50]);
    expect((await inner.loadState("s1"))?.world.document).toEqual({ total: 50 });

    total = 51;
    persister.add({ seq: 50, ts: 1, kind: "status", status: "paused" });
    await persister.flush();
    expect(writes).toEqual([50, 1]);
    expect((await inner.loadState("s1"))?.world.document).toEqual({ total: 51 });

    // Nothing changed since: a flush writes nothing.
    await persister.flush();
    expect(writes).toEqual([50, 1]);
  });

  it("flushSoon: callers within the gather time share one write, which holds what each had changed before it asked", async () => {
    const { inner, store, writes } = countingStore();
    let total = 0;
    // A long interval: only the flushes write. A gather time of a second holds the three callers together however
    // busy the machine is (with 20 ms, a loaded machine's timers let it pass between them).
    const persister = new ScenePersister(store, "s1", () => stateWith(total), undefined, 60_000, 1_000);
    const asked: Array<Promise<void>> = [];
    for (let i = 1; i <= 3; i++) {
      total = i;
      persister.add({ seq: i - 1, ts: 1, kind: "status", status: "running" });
      asked.push(persister.flushSoon());
      await Promise.resolve();
    }
    expect(writes).toEqual([]);
    await Promise.all(asked);
    expect(writes).toEqual([3]);
    expect((await inner.loadState("s1"))?.world.document).toEqual({ total: 3 });

    // Asked again later: another write, with what changed since.
    total = 4;
    persister.add({ seq: 3, ts: 1, kind: "status", status: "paused" });
    await persister.flushSoon();
    expect(writes).toEqual([3, 1]);
    expect((await inner.loadState("s1"))?.world.document).toEqual({ total: 4 });
  });

  it("flushSoon writes no sooner than spacingMs after the last write began, and after gatherMs when there was none", async () => {
    const { store, writes } = countingStore();
    let total = 0;
    // A minute apart: the first write would never come if spacing held it too.
    const idle = new ScenePersister(store, "s1", () => stateWith(total), undefined, 60_000, 5, 60_000);
    total = 1;
    idle.add({ seq: 0, ts: 1, kind: "status", status: "running" });
    await idle.flushSoon();
    expect(writes).toEqual([1]);

    const busy = new ScenePersister(store, "s1", () => stateWith(total), undefined, 60_000, 5, 1_000);
    total = 2;
    busy.add({ seq: 1, ts: 1, kind: "status", status: "running" });
    await busy.flushSoon();
    expect(writes).toEqual([1, 1]);
    total = 3;
    busy.add({ seq: 2, ts: 1, kind: "status", status: "paused" });
    const next = busy.flushSoon();
    // Well past gatherMs, well short of spacingMs: not written yet (a slow machine only makes this later).
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(writes).toEqual([1, 1]);
    await next;
    expect(writes).toEqual([1, 1, 1]);
  });

  it("flushSoon rejects every caller of a write that failed, without running their work, and the entries wait for the next", async () => {
    const unblock = await blockScene();
    const store = new FileSceneStateStore(dir);
    const persister = new ScenePersister(store, "s1", () => stateWith(1), undefined, 60_000, 5);
    persister.add({ seq: 0, ts: 1, kind: "status", status: "running" });
    let ran = false;
    const first = persister.flushSoon();
    const second = persister.flushSoon();
    const withWork = persister.flushSoon(async () => void (ran = true));
    await expect(first).rejects.toThrow();
    await expect(second).rejects.toThrow();
    await expect(withWork).rejects.toThrow();
    expect(ran).toBe(false);
    await unblock();
    await persister.flushSoon();
    expect((await store.readLog("s1")).map((e) => e.seq)).toEqual([0]);
  });

  it("flushSoon(work): the work runs after the write that holds what changed before it asked; its failure is its caller's alone", async () => {
    const { inner, store, writes } = countingStore();
    let total = 0;
    let snapshots = 0;
    const persister = new ScenePersister(store, "s1", () => (snapshots++, stateWith(total)), undefined, 60_000, 10);
    const seen: Array<unknown> = [];
    total = 1;
    persister.add({ seq: 0, ts: 1, kind: "status", status: "running" });
    const ok = persister.flushSoon(async () => void seen.push((await inner.loadState("s1"))?.world.document));
    const failing = persister.flushSoon(async () => {
      throw new Error("duplicate message id");
    });
    await expect(failing).rejects.toThrow("duplicate message id");
    await ok;
    // One write for both, and the work saw its state saved.
    expect(writes).toEqual([1]);
    expect(seen).toEqual([{ total: 1 }]);
    // Work with nothing changed still runs, without a snapshot or a write of the state.
    let ran = false;
    await persister.flushSoon(async () => void (ran = true));
    expect(ran).toBe(true);
    expect(snapshots).toBe(1);
    expect(writes).toEqual([1]);
  });
});
