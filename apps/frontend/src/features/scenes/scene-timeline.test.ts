import { describe, expect, it } from "vitest";
import type { AgentStepTrace, SceneLogEntry, SceneStepView } from "@weft/types";
import { buildTimeline, describeTrigger, isCompact, worldHistory } from "./scene-timeline.ts";

const user = (seq: number, id: string, instanceId: string, to: string, text: string, at = 100): SceneLogEntry => ({
  seq,
  ts: at,
  kind: "trigger.queued",
  instanceId,
  trigger: { id, at, coalesced: 0, kind: "user", text, to },
});

/** The notice-board session's log (as the server records it), then a message to all agents. */
const entries: SceneLogEntry[] = [
  { seq: 0, ts: 90, kind: "status", status: "running" },
  { seq: 1, ts: 100, kind: "event", topic: "user.message", payload: { to: "scribe", text: "Post it" }, source: "user", eventSeq: 0 },
  user(2, "t1", "scribe", "scribe", "Post it"),
  { seq: 3, ts: 101, kind: "deliberation.started", instanceId: "scribe", triggerId: "t1", budgetUsed: 0 },
  { seq: 4, ts: 150, kind: "world.changed", change: { seq: 1, op: "set", path: "board.note", before: null, after: "Open", agentId: "scribe", ts: 150 } },
  { seq: 5, ts: 151, kind: "event", topic: "world.note-posted", payload: "Open", source: "scribe", eventSeq: 1 },
  {
    seq: 6,
    ts: 151,
    kind: "trigger.queued",
    instanceId: "herald",
    trigger: { id: "t2", at: 151, coalesced: 0, kind: "event", topic: "world.note-posted", payload: "Open", source: "scribe", eventSeq: 1 },
  },
  { seq: 7, ts: 152, kind: "deliberation.started", instanceId: "herald", triggerId: "t2", budgetUsed: 1 },
  { seq: 8, ts: 180, kind: "llm.output", instanceId: "scribe", triggerId: "t1", step: 1, text: "raw" },
  { seq: 9, ts: 181, kind: "deliberation.finished", instanceId: "scribe", triggerId: "t1", ok: true },
  { seq: 10, ts: 190, kind: "deliberation.finished", instanceId: "herald", triggerId: "t2", ok: false, error: "LLM_FAILED: down" },
  user(11, "t3", "scribe", "all", "hello", 200),
  user(12, "t4", "herald", "all", "hello", 200),
];

const step = (instanceId: string, n: number, startedAt: number): SceneStepView => ({ instanceId, conversationId: `c-${instanceId}`, trace: { step: n, startedAt } as AgentStepTrace });

describe("the scene timeline", () => {
  it("puts log entries and steps in time order, a step before the changes its action made, a broadcast once", () => {
    const items = buildTimeline(entries, [step("scribe", 1, 102), step("herald", 1, 153), step("scribe", 2, 160)]);
    expect(items.map((i) => (i.kind === "step" ? `step:${i.step.instanceId}:${i.step.trace.step}` : i.kind))).toEqual([
      "status",
      "user",
      "woke",
      "step:scribe:1",
      "world",
      "event",
      "queued",
      "woke",
      "step:herald:1",
      "step:scribe:2",
      "finished",
      "finished",
      "user",
    ]);
    const users = items.filter((i) => i.kind === "user");
    expect(users).toMatchObject([
      { to: "scribe", text: "Post it" },
      { to: "all", text: "hello" },
    ]);
    expect(items.find((i) => i.kind === "woke" && i.instanceId === "herald")).toMatchObject({ trigger: { kind: "event", topic: "world.note-posted" } });
  });

  it("keeps what was said, done and changed in the compact view, failures included", () => {
    const compact = buildTimeline(entries, [])
      .filter(isCompact)
      .map((i) => i.kind);
    expect(compact).toEqual(["status", "user", "world", "event", "finished", "user"]);
  });

  it("lists the world changes newest first and names what woke an agent", () => {
    expect(worldHistory(entries)).toMatchObject([{ path: "board.note", after: "Open", agentId: "scribe" }]);
    expect(describeTrigger({ id: "t", at: 0, coalesced: 0, kind: "timer", timerId: "clock", message: "tick", tick: 3 })).toBe("timer clock (tick 3)");
  });
});
