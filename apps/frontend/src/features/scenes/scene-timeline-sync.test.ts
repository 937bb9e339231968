import { describe, expect, it } from "vitest";
import type { AgentStepTrace, SceneLogEntry, SceneStepView, SceneTimeline } from "@weft/types";
import { applyTimeline, combineTimelinePages, emptyTimeline } from "./scene-timeline-sync.ts";

const entry = (seq: number): SceneLogEntry => ({ seq, ts: seq, kind: "status", status: "running" });
const step = (instanceId: string, n: number, startedAt: number): SceneStepView => ({ instanceId, conversationId: `c-${instanceId}`, trace: { step: n, startedAt } as AgentStepTrace });
const page = (p: Partial<SceneTimeline> & { entries: SceneLogEntry[] }): SceneTimeline => ({
  sessionId: "s1",
  steps: [],
  nextSeq: (p.entries.at(-1)?.seq ?? -1) + 1,
  cursor: `after-${p.entries.at(-1)?.seq ?? "none"}`,
  reset: false,
  ...p,
});

describe("applyTimeline", () => {
  it("takes a full read, then appends what is new, steps in time order across agents", () => {
    let held = applyTimeline(emptyTimeline(), page({ entries: [entry(0), entry(1)], steps: [step("ann", 1, 10)], reset: true }));
    expect(held).toMatchObject({ sessionId: "s1", nextSeq: 2, cursor: "after-1" });
    held = applyTimeline(held, page({ entries: [entry(2)], steps: [step("bob", 1, 5), step("ann", 2, 20)] }));
    expect(held.entries.map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(held.steps.map((s) => `${s.instanceId}${s.trace.step}`)).toEqual(["bob1", "ann1", "ann2"]);
    // Nothing new: the same arrays are kept (nothing to re-render).
    const same = applyTimeline(held, page({ entries: [], nextSeq: 3, cursor: "after-2" }));
    expect(same.entries).toBe(held.entries);
    expect(same.steps).toBe(held.steps);
  });

  it("replaces everything on a reset (a new session), and never takes an entry or step twice", () => {
    const held = applyTimeline(emptyTimeline(), page({ entries: [entry(0), entry(1), entry(2)], steps: [step("ann", 1, 1)], reset: true }));
    const again = applyTimeline(held, page({ entries: [entry(2), entry(3)], steps: [step("ann", 1, 1)] }));
    expect(again.entries.map((e) => e.seq)).toEqual([0, 1, 2, 3]);
    expect(again.steps).toHaveLength(1);
    const fresh = applyTimeline(again, page({ sessionId: "s2", entries: [entry(0)], reset: true }));
    expect(fresh).toMatchObject({ sessionId: "s2", nextSeq: 1, steps: [] });
    expect(fresh.entries.map((e) => e.seq)).toEqual([0]);
  });
});

describe("combineTimelinePages", () => {
  it("joins pages read one after the other, and starts over at a page that resets", () => {
    const joined = combineTimelinePages([page({ entries: [entry(0), entry(1)], steps: [step("ann", 1, 1)], reset: true }), page({ entries: [entry(2)] })]);
    expect(joined).toMatchObject({ reset: true, nextSeq: 3, cursor: "after-2" });
    expect(joined.entries.map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(joined.steps).toHaveLength(1);
    const restarted = combineTimelinePages([page({ entries: [entry(5)] }), page({ sessionId: "s2", entries: [entry(0)], reset: true })]);
    expect(restarted).toMatchObject({ sessionId: "s2", reset: true });
    expect(restarted.entries.map((e) => e.seq)).toEqual([0]);
  });
});
