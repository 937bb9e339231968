import { describe, expect, it } from "vitest";
import type { AgentTrigger, OverflowPolicy } from "@weft/types";
import { TriggerQueue } from "./trigger-queue.ts";

let n = 0;
const event = (topic: string, payload: number): AgentTrigger => ({ id: `t${++n}`, at: 0, coalesced: 0, kind: "event", topic, payload, source: "x", eventSeq: n });
const user = (text: string): AgentTrigger => ({ id: `t${++n}`, at: 0, coalesced: 0, kind: "user", text, to: "a" });
const timer = (tick: number): AgentTrigger => ({ id: `t${++n}`, at: 0, coalesced: 0, kind: "timer", timerId: "clock", message: "tick", tick });

function describeItems(q: TriggerQueue): string[] {
  return q.toArray().map((t) => (t.kind === "event" ? `${t.topic}=${String(t.payload)}` : t.kind === "user" ? `user:${t.text}` : `tick${t.tick}`));
}

const full = (policy: OverflowPolicy) => {
  const q = new TriggerQueue({ capacity: 3, overflow: policy });
  q.offer(event("a.x", 1));
  q.offer(event("b.x", 2));
  q.offer(event("a.x", 3));
  return q;
};

describe("TriggerQueue", () => {
  it("drop-oldest evicts the oldest waiting trigger", () => {
    const q = full("drop-oldest");
    const out = q.offer(event("c.x", 4));
    expect(out).toMatchObject({ kind: "queued", evicted: { topic: "a.x", payload: 1 } });
    expect(describeItems(q)).toEqual(["b.x=2", "a.x=3", "c.x=4"]);
  });

  it("drop-newest refuses the arriving trigger", () => {
    const q = full("drop-newest");
    expect(q.offer(event("c.x", 4))).toEqual({ kind: "refused" });
    expect(describeItems(q)).toEqual(["a.x=1", "b.x=2", "a.x=3"]);
  });

  it("coalesce replaces the first waiting trigger of the same topic in place, counting the merge", () => {
    const q = full("coalesce");
    const out = q.offer(event("b.x", 9));
    expect(out).toMatchObject({ kind: "coalesced", replaced: { payload: 2 } });
    expect(describeItems(q)).toEqual(["a.x=1", "b.x=9", "a.x=3"]);
    expect(q.toArray()[1].coalesced).toBe(1);
    q.offer(event("b.x", 10));
    expect(q.toArray()[1].coalesced).toBe(2);
  });

  it("coalesce falls back to dropping the oldest when no waiting trigger shares the topic", () => {
    const q = full("coalesce");
    expect(q.offer(event("c.x", 4))).toMatchObject({ kind: "queued", evicted: { payload: 1 } });
  });

  it("coalesces timer ticks of the same timer", () => {
    const q = new TriggerQueue({ capacity: 1, overflow: "coalesce" });
    q.offer(timer(1));
    q.offer(timer(2));
    q.offer(timer(3));
    expect(describeItems(q)).toEqual(["tick3"]);
    expect(q.toArray()[0].coalesced).toBe(2);
  });

  it("never drops a user message under any policy", () => {
    for (const policy of ["drop-oldest", "drop-newest", "coalesce"] as const) {
      const q = new TriggerQueue({ capacity: 2, overflow: policy });
      q.offer(user("first"));
      q.offer(event("a.x", 1));
      expect(q.offer(user("second"))).toMatchObject({ kind: "queued", evicted: { topic: "a.x" } });
      expect(q.offer(event("b.x", 2))).toEqual({ kind: "refused" });
      expect(q.offer(user("third"))).toEqual({ kind: "queued" });
      expect(describeItems(q)).toEqual(["user:first", "user:second", "user:third"]);
    }
  });
});
