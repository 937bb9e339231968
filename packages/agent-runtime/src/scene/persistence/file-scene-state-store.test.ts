import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SceneLogEntry, SceneRuntimeState } from "@weft/types";
import { FileSceneStateStore } from "./file-scene-state-store.ts";

let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "weft-store-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const state = (total: number): SceneRuntimeState => ({
  version: 1,
  sceneId: "s1",
  sceneRevision: 0,
  status: "paused",
  world: { document: { total }, seq: 1, history: [] },
  privateStates: { ann: {} },
  mailboxes: { ann: { queue: [], inFlight: null, delivered: 0, dropped: 0, coalesced: 0 } },
  budget: { limit: 10, used: 0 },
  timers: [],
  counters: { trigger: 0, event: 0, log: 2, stream: 0 },
  runningMs: 0,
  savedAt: 1,
});
const entry = (seq: number): SceneLogEntry => ({ seq, ts: 1, kind: "status", status: "running" });

describe("FileSceneStateStore", () => {
  it("replaces the state atomically and appends the log", async () => {
    const store = new FileSceneStateStore(dir);
    await store.saveState(state(1));
    await store.saveState(state(2));
    expect((await store.loadState("s1"))?.world.document).toEqual({ total: 2 });
    expect(await readdir(join(dir, "s1"))).toEqual(["state.json"]);

    await store.appendLog("s1", [entry(0), entry(1)]);
    await store.appendLog("s1", [entry(2)]);
    expect((await store.readLog("s1")).map((e) => e.seq)).toEqual([0, 1, 2]);
    expect((await store.readLog("s1", 2)).map((e) => e.seq)).toEqual([2]);
    expect(await store.readLog("never-saved")).toEqual([]);
  });

  it("skips a cut-off last log line but refuses damage elsewhere, leaving the files as they are", async () => {
    const store = new FileSceneStateStore(dir);
    await store.appendLog("s1", [entry(0)]);
    const file = join(dir, "s1", "log.jsonl");
    await appendFile(file, '{"seq":1,"ts":1,"ki');
    expect((await store.readLog("s1")).map((e) => e.seq)).toEqual([0]);

    await writeFile(file, `not json\n${JSON.stringify(entry(1))}\n`);
    await expect(store.readLog("s1")).rejects.toMatchObject({ code: "INVALID_STATE", message: expect.stringContaining("Line 1") });
    expect(await readFile(file, "utf8")).toContain("not json");
  });

  it("refuses a damaged state file and an id that cannot name a folder", async () => {
    const store = new FileSceneStateStore(dir);
    await store.saveState(state(1));
    const file = join(dir, "s1", "state.json");
    await writeFile(file, JSON.stringify({ ...state(1), budget: { limit: "ten" } }));
    await expect(store.loadState("s1")).rejects.toMatchObject({ code: "INVALID_STATE", message: expect.stringContaining("budget.limit") });
    await writeFile(file, "{");
    await expect(store.loadState("s1")).rejects.toMatchObject({ code: "INVALID_STATE", message: expect.stringContaining("not valid JSON") });
    await expect(store.loadState("../escape")).rejects.toMatchObject({ code: "INVALID_SCENE" });
    await expect(store.saveState({ ...state(1), sceneId: ".." })).rejects.toMatchObject({ code: "INVALID_SCENE" });
  });
});
