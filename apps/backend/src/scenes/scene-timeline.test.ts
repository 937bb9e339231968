import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { SceneStateViewSchema, SceneTimelineSchema, type SceneStepView } from "@weft/types";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { startTestServer, type TestServer } from "../testing/test-server.ts";
import { until } from "../testing/until.ts";

/** The notice board's world: the note on its board. */
const BoardWorldSchema = z.object({ board: z.object({ note: z.unknown() }).optional() });
/** What starting a scene answers: its new session. */
const StartedSchema = z.object({ sessionId: z.string() });

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ examplesDir: EXAMPLES });
});
afterAll(() => t.stop());

const timeline = async (query = "") => {
  const r = await t.call("GET", `/api/scenes/notice-board/timeline${query}`);
  expect(r.status).toBe(200);
  return SceneTimelineSchema.parse(r.body);
};
const stepKey = (s: SceneStepView) => `${s.conversationId}/${s.trace.step}`;

/** Posts a note through Scribe and waits until Herald has answered it and the scene is idle again. */
async function postNote(note: string) {
  expect((await t.call("POST", "/api/scenes/notice-board/messages", { to: "scribe", text: `Post the note "${note}"` })).status).toBe(202);
  await until(`the note "${note}" to be answered`, async () => {
    const s = SceneStateViewSchema.parse((await t.call("GET", "/api/scenes/notice-board/state")).body);
    const idle = s.agents.every((a) => a.status === "idle" && a.inFlight === null && a.queue.length === 0);
    const answered = (await timeline()).steps.some((st) => st.instanceId === "herald" && st.trace.responseText.includes(note));
    return idle && answered && BoardWorldSchema.parse(s.world).board?.note === note ? true : undefined;
  });
}

describe("the incremental timeline", () => {
  it("gives only entries and steps stored after the cursor, pages by limit, and starts over after a new session", async () => {
    const never = await timeline();
    expect(never).toMatchObject({ entries: [], steps: [], nextSeq: 0, reset: true });
    expect(never.sessionId).toBeUndefined();
    expect(await timeline(`?since=${never.cursor}`)).toMatchObject({ entries: [], steps: [], reset: false });

    const started = StartedSchema.parse((await t.call("POST", "/api/scenes/notice-board/start")).body);
    // The cursor of "no session yet" is of another session now: everything of the new one comes back.
    const first = await timeline(`?since=${never.cursor}`);
    expect(first).toMatchObject({ sessionId: started.sessionId, reset: true });
    expect(first.entries[0]?.seq).toBe(0);

    await postNote("One");
    const full1 = await timeline();
    expect(full1.steps.length).toBeGreaterThanOrEqual(4);
    const nothing = await timeline(`?since=${full1.cursor}`);
    expect(nothing).toMatchObject({ sessionId: started.sessionId, entries: [], steps: [], nextSeq: full1.nextSeq, reset: false });

    await postNote("Two");
    const delta = await timeline(`?since=${full1.cursor}`);
    const full2 = await timeline();
    expect(delta.reset).toBe(false);
    expect(delta.entries[0]?.seq).toBe(full1.nextSeq);
    expect([...full1.entries, ...delta.entries]).toEqual(full2.entries);
    // Only the new steps, and together with the earlier ones exactly the session's steps.
    expect(delta.steps.length).toBeGreaterThan(0);
    expect(delta.steps.some((s) => full1.steps.some((o) => stepKey(o) === stepKey(s)))).toBe(false);
    expect([...full1.steps, ...delta.steps].map(stepKey).sort()).toEqual(full2.steps.map(stepKey).sort());
    expect(delta.steps.some((s) => s.trace.responseText.includes("Two"))).toBe(true);

    // Paged: each page's cursor reads on where the page ended; the steps come once.
    const pages: z.infer<typeof SceneTimelineSchema>[] = [];
    let cursor = full1.cursor;
    for (;;) {
      const page = await timeline(`?since=${cursor}&limit=3`);
      pages.push(page);
      cursor = page.cursor;
      if (page.entries.length < 3) break;
    }
    expect(pages.length).toBeGreaterThan(2);
    expect(pages.flatMap((p) => p.entries)).toEqual(delta.entries);
    expect(pages.flatMap((p) => p.steps).map(stepKey)).toEqual(delta.steps.map(stepKey));

    // A new session: the old cursor gets the new session from its start, marked as a reset.
    await t.call("POST", "/api/scenes/notice-board/stop");
    const restarted = StartedSchema.parse((await t.call("POST", "/api/scenes/notice-board/start")).body);
    const after = await timeline(`?since=${full2.cursor}`);
    expect(after).toMatchObject({ sessionId: restarted.sessionId, reset: true, steps: [] });
    expect(after.sessionId).not.toBe(started.sessionId);
    expect(after.entries[0]?.seq).toBe(0);
    await t.call("POST", "/api/scenes/notice-board/stop");
  });

  it("bounds each answer in bytes; reading on by cursor gives the rest once, in order", async () => {
    await t.call("POST", "/api/scenes/notice-board/start");
    await postNote("Bounded");
    await postNote("Bounded again");
    const whole = await timeline();
    expect(whole.more).toBe(false);
    expect(whole.steps.length).toBeGreaterThanOrEqual(8);

    const maxBytes = 4096;
    const pages: z.infer<typeof SceneTimelineSchema>[] = [];
    let query = `?maxBytes=${maxBytes}`;
    for (let i = 0; i < 500; i++) {
      const res = await t.fetch(`/api/scenes/notice-board/timeline${query}`);
      expect(res.status).toBe(200);
      const text = await res.text();
      const page = SceneTimelineSchema.parse(JSON.parse(text));
      pages.push(page);
      // Within the bound and its envelope (session, cursor), unless one item larger than the bound came alone.
      const items = page.entries.length + page.steps.length;
      expect(items).toBeGreaterThan(0);
      if (items > 1) expect(Buffer.byteLength(text)).toBeLessThanOrEqual(maxBytes + 1024);
      query = `?maxBytes=${maxBytes}&since=${page.cursor}`;
      if (!page.more) break;
    }
    expect(pages.length).toBeGreaterThan(2);
    expect(pages.at(-1)?.more).toBe(false);
    expect(pages.slice(1).every((p) => !p.reset)).toBe(true);
    expect(pages.flatMap((p) => p.entries)).toEqual(whole.entries);
    const read = pages.flatMap((p) => p.steps);
    expect(read.map(stepKey).sort()).toEqual(whole.steps.map(stepKey).sort());
    expect(new Set(read.map(stepKey)).size).toBe(read.length);
    expect((await t.call("GET", "/api/scenes/notice-board/timeline?maxBytes=10")).status).toBe(400);
    await t.call("POST", "/api/scenes/notice-board/stop");
  });

  it("refuses a cursor it did not give out", async () => {
    const r = await t.call("GET", "/api/scenes/notice-board/timeline?since=bm90LWEtY3Vyc29y");
    expect(r.status).toBe(400);
    expect(ErrorBodySchema.parse(r.body).error).toMatchObject({ code: "VALIDATION_FAILED", message: expect.stringContaining("since") });
    expect((await t.call("GET", "/api/scenes/ghost/timeline?since=x")).status).toBe(404);
  });
});
