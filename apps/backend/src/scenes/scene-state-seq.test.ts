import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { SceneStateViewSchema, SceneTimelineSchema } from "@weft/types";
import { EventsPageSchema, startTestServer, type TestServer } from "../testing/test-server.ts";
import { TestWsClient } from "../testing/ws-client.ts";
import { until } from "../testing/until.ts";

/** The notice board's world: the note on its board. */
const BoardWorldSchema = z.object({ board: z.object({ note: z.unknown() }) });

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ examplesDir: EXAMPLES });
});
afterAll(() => t.stop());

const lastStored = async (streamId: string) => {
  const events = EventsPageSchema.parse((await t.call("GET", `/api/streams/${streamId}/events?limit=10000`)).body).events;
  return events.at(-1)?.seq ?? -1;
};

describe("the scene state's stream position and the log signal", () => {
  it("is -1 before the scene ever ran, then the last stored event; `scene.log` says how far the stored log reaches", async () => {
    expect((await t.call("GET", "/api/scenes/notice-board/state")).body).toMatchObject({ live: false, streamSeq: -1 });

    const started = SceneStateViewSchema.parse((await t.call("POST", "/api/scenes/notice-board/start")).body);
    expect(started.streamSeq).toBeGreaterThanOrEqual(-1);
    await t.call("POST", "/api/scenes/notice-board/messages", { to: "scribe", text: 'Post the note "Seq test"' });
    const settled = await until("Herald to answer and the stream to be stored", async () => {
      const s = SceneStateViewSchema.parse((await t.call("GET", "/api/scenes/notice-board/state")).body);
      const done = s.agents.every((a) => a.status === "idle" && a.inFlight === null && a.queue.length === 0) && BoardWorldSchema.parse(s.world).board.note === "Seq test";
      return done && s.streamSeq === (await lastStored("notice-board")) && s.streamSeq > started.streamSeq ? s : undefined;
    });

    // The stream says when the log is stored: the last entry (an agent's finished deliberation) comes with no other event.
    const timeline = SceneTimelineSchema.parse((await t.call("GET", "/api/scenes/notice-board/timeline")).body);
    expect(timeline.entries.at(-1)).toMatchObject({ kind: "deliberation.finished" });
    const stream = EventsPageSchema.parse((await t.call("GET", "/api/streams/notice-board/events?limit=10000")).body).events;
    const signals = stream.flatMap((e) => (e.type === "scene.log" ? [e.nextSeq] : []));
    expect(signals.at(-1)).toBe(timeline.nextSeq);
    expect(signals).toEqual([...signals].sort((a, b) => a - b));

    // Subscribing after the snapshot's position gives only what happens next, starting right after it.
    const ws = await TestWsClient.connect(t.url);
    ws.subscribe("notice-board", settled.streamSeq);
    await t.call("POST", "/api/scenes/notice-board/pause");
    const next = await ws.waitFor((c) => (c.events("notice-board").some((e) => e.type === "scene.status" && e.status === "paused") ? c.events("notice-board") : undefined));
    expect(next[0]?.seq).toBe(settled.streamSeq + 1);
    ws.close();

    const stopped = SceneStateViewSchema.parse((await t.call("POST", "/api/scenes/notice-board/stop")).body);
    expect(stopped.streamSeq).toBeGreaterThan(settled.streamSeq);
  });
});
