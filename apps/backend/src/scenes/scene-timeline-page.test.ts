import { describe, expect, it } from "vitest";
import { SceneTimelineSchema, type SceneLogEntry } from "@weft/types";
import { TimelinePageBuilder } from "./scene-timeline-page.ts";

const entry = (seq: number, text: string): SceneLogEntry => ({ seq, ts: 1000 + seq, kind: "status", status: "running", reason: { code: "REQUESTED", message: text } });
const envelope = { sessionId: "s1", nextSeq: 0, cursor: "c", reset: true };

describe("a timeline page", () => {
  it("takes items while they fit its byte bound, then none; its JSON is the answer's", () => {
    const page = new TimelinePageBuilder(1000);
    const taken: number[] = [];
    for (let seq = 0; seq < 20; seq++) if (page.addEntry(entry(seq, "x".repeat(150)))) taken.push(seq);
    expect(page.full).toBe(true);
    expect(taken.length).toBeGreaterThan(2);
    expect(taken).toEqual(taken.map((_, i) => i));
    const { answer, json } = page.finish(envelope);
    expect(Buffer.byteLength(JSON.stringify(answer.entries))).toBeLessThanOrEqual(1000 + taken.length + 1);
    expect(answer.more).toBe(true);
    expect(SceneTimelineSchema.parse(JSON.parse(json))).toEqual(SceneTimelineSchema.parse(answer));
  });

  it("takes one item larger than the bound alone, so a reader always moves on", () => {
    const page = new TimelinePageBuilder(100);
    expect(page.addEntry(entry(0, "y".repeat(500)))).toBe(true);
    expect(page.addEntry(entry(1, "small"))).toBe(false);
    const { answer, json } = page.finish(envelope);
    expect(answer.entries.map((e) => e.seq)).toEqual([0]);
    expect(JSON.parse(json)).toMatchObject({ more: true, sessionId: "s1", reset: true, steps: [] });
  });

  it("says nothing more when everything fit", () => {
    const page = new TimelinePageBuilder(10_000);
    page.addEntry(entry(0, "a"));
    const { answer, json } = page.finish({ nextSeq: 1, cursor: "c", reset: false });
    expect(answer.more).toBe(false);
    expect(JSON.parse(json)).toEqual({ nextSeq: 1, cursor: "c", reset: false, more: false, entries: [answer.entries[0]], steps: [] });
  });
});
