import { describe, expect, it } from "vitest";
import type { SceneLogEntry } from "@weft/types";
import { SceneLog } from "../log/scene-log.ts";
import { RecordedEffectOrder } from "./effect-order.ts";

const change = (seq: number, agentId: string): SceneLogEntry => ({ seq, ts: 1, kind: "world.changed", change: { seq, op: "set", path: "x", after: seq, agentId, ts: 1 } });
const event = (seq: number, source: string): SceneLogEntry => ({ seq, ts: 1, kind: "event", topic: "a.b", payload: null, source, eventSeq: seq });

describe("RecordedEffectOrder", () => {
  it("lets each agent's write or publish through only when the record says it acted next", async () => {
    const order = new RecordedEffectOrder([change(0, "ann"), event(1, "bob"), change(2, "ann")]);
    const replay = new SceneLog();
    order.attach(replay);
    const passed: string[] = [];
    const bob = order.turn("event", "bob").then(() => passed.push("bob"));
    await order.turn("world", "ann").then(() => passed.push("ann"));
    await Promise.resolve();
    expect(passed).toEqual(["ann"]);
    replay.append({ kind: "world.changed", change: { seq: 0, op: "set", path: "x", after: 0, agentId: "ann", ts: 1 } });
    await bob;
    expect(passed).toEqual(["ann", "bob"]);
    const annAgain = order.turn("world", "ann").then(() => passed.push("ann again"));
    await Promise.resolve();
    expect(passed).toEqual(["ann", "bob"]);
    replay.append({ kind: "event", topic: "a.b", payload: null, source: "bob", eventSeq: 0 });
    await annAgain;
    expect(passed).toEqual(["ann", "bob", "ann again"]);
    expect(order.divergences).toEqual([]);
    order.dispose();
  });

  it("reports a replay that cannot follow the record and opens the gate instead of hanging", async () => {
    const order = new RecordedEffectOrder([change(0, "ann")], 20);
    await order.turn("world", "bob");
    expect(order.divergences).toEqual(['The replay could not follow the recorded order: the record expects "ann writes the world" next, while waiting: bob writes the world.']);
    await order.turn("world", "carl");
  });
});
