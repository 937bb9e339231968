import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { SceneReplayLineSchema, SceneReplayResultSchema, SceneSchema, SceneStateViewSchema, SceneTimelineSchema, type SceneReplayLine } from "@weft/types";
import { startTestServer, type TestServer } from "../testing/test-server.ts";
import { until } from "../testing/until.ts";

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ examplesDir: EXAMPLES });
});
afterAll(() => t.stop());

/** The replay asked for as NDJSON: its lines as they came, each checked against the line schema. */
async function replayLines(sceneId: string): Promise<{ status: number; type: string | null; lines: SceneReplayLine[] }> {
  const res = await t.fetch(`/api/scenes/${sceneId}/replay`, { method: "POST", headers: { accept: "application/x-ndjson", "content-type": "application/json" } });
  const text = await res.text();
  const lines = res.ok
    ? text
        .split("\n")
        .filter(Boolean)
        .map((l) => SceneReplayLineSchema.parse(JSON.parse(l)))
    : [];
  return { status: res.status, type: res.headers.get("content-type"), lines };
}

async function recordSession(note: string) {
  await t.call("POST", "/api/scenes/notice-board/start");
  await t.call("POST", "/api/scenes/notice-board/messages", { to: "scribe", text: `Post the note "${note}"` });
  await until("Herald to answer", async () => {
    const s = SceneStateViewSchema.parse((await t.call("GET", "/api/scenes/notice-board/state")).body);
    const steps = SceneTimelineSchema.parse((await t.call("GET", "/api/scenes/notice-board/timeline")).body).steps;
    const idle = s.agents.every((a) => a.status === "idle" && a.inFlight === null && a.queue.length === 0);
    return idle && steps.some((st) => st.instanceId === "herald" && st.trace.responseText.includes(note)) ? true : undefined;
  });
  await t.call("POST", "/api/scenes/notice-board/stop");
}

describe("replaying a scene session over the API", () => {
  it("refuses a scene with no recorded session with its HTTP status, also when progress lines are asked for", async () => {
    const r = await replayLines("notice-board");
    expect(r.status).toBe(409);
    expect((await t.call("POST", "/api/scenes/ghost/replay")).status).toBe(404);
  });

  it("streams its progress, then a result with the same world state", async () => {
    await recordSession("The bridge is open");
    const r = await replayLines("notice-board");
    expect(r.status).toBe(200);
    expect(r.type).toContain("application/x-ndjson");
    const progress = r.lines.flatMap((l) => (l.type === "progress" ? [l.progress] : []));
    const last = r.lines.at(-1);
    expect(last?.type).toBe("result");
    if (last?.type !== "result") return;
    expect(last.result).toMatchObject({ ok: true, matches: true, differences: [], messages: 1, world: { board: { note: "The bridge is open" } } });
    // From nothing done to everything: one message, every recorded output served, never going back.
    expect(progress[0]).toMatchObject({ messagesDone: 0, messages: 1, outputsUsed: 0 });
    expect(progress.at(-1)).toEqual({ messagesDone: 1, messages: 1, outputsUsed: progress[0]?.outputs, outputs: progress[0]?.outputs });
    expect(progress[0]?.outputs).toBeGreaterThanOrEqual(4);
    const used = progress.map((p) => p.outputsUsed);
    expect(used).toEqual([...used].sort((a, b) => a - b));
    expect(new Set(used).size).toBe((progress[0]?.outputs ?? 0) + 1);
  });

  it("reports where the replayed state differs from the recorded one, with both values", async () => {
    // The replay starts from the definition as it is now: an edited initial world shows as a difference.
    const current = z.object({ scene: SceneSchema }).parse((await t.call("GET", "/api/scenes/notice-board")).body).scene;
    const edited = { ...current, initialWorldState: { board: { note: null, pinned: true } } };
    expect((await t.call("PUT", "/api/scenes/notice-board", { scene: edited, baseRevision: current.revision })).status).toBe(200);

    const r = await t.call("POST", "/api/scenes/notice-board/replay");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, matches: false, differences: [{ path: "board.pinned", replayed: true }] });
    const result = SceneReplayResultSchema.parse(r.body);
    expect(result.differences[0]).not.toHaveProperty("recorded");
    expect(result.recorded.world).toEqual({ board: { note: "The bridge is open" } });
    expect(result.world).toEqual({ board: { note: "The bridge is open", pinned: true } });
  });
});
