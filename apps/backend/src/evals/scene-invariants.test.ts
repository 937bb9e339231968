import { describe, expect, it } from "vitest";
import type { SceneInvariant, SceneLogEntry } from "@weft/types";
import { checkSceneInvariants } from "./scene-invariants.ts";

let seq = 0;
const set = (path: string, after: unknown, before?: unknown): SceneLogEntry =>
  ({ seq: seq++, ts: 0, kind: "world.changed", change: { seq: 0, op: "set", path, after, ...(before !== undefined ? { before } : {}), ts: 0 } }) as SceneLogEntry;
const event = (topic: string): SceneLogEntry => ({ seq: seq++, ts: 0, kind: "event", topic, payload: null, source: "a", eventSeq: 0 });
const noise = (): SceneLogEntry => ({ seq: seq++, ts: 0, kind: "deliberation.started", instanceId: "a", triggerId: "t", budgetUsed: 0 });
const link = (s: number | undefined) => `L${s ?? "-"}`;
const check = (invariants: SceneInvariant[], entries: SceneLogEntry[], initialWorld = {}) => checkSceneInvariants(invariants, { initialWorld, entries }, link);

describe("scene invariants over a session log", () => {
  it("counts only world changes and events as steps and reports a state invariant's first broken step with its value", async () => {
    seq = 0;
    const report = await check([{ kind: "state", path: "stock", op: "gte", value: 0 }], [noise(), set("stock", 1), noise(), event("x.y"), set("stock", -2), set("stock", -5)], { stock: 3 });
    expect(report.steps).toBe(4);
    expect(report.broken).toEqual([{ invariant: 0, name: "stock ≥ 0", step: 3, seq: 4, message: '"stock" is -2, not ≥ 0 at step 3', value: -2, link: "L4" }]);
  });

  it("breaks at step 0 when the starting world already breaks it, and a missing path breaks unless optional", async () => {
    const report = await check(
      [
        { kind: "state", path: "stock", op: "lte", value: 10 },
        { kind: "state", path: "missing", op: "ne", value: 1 },
        { kind: "state", path: "missing", op: "eq", value: 1, optional: true },
      ],
      [],
      { stock: 11 },
    );
    expect(report.broken.map((b) => [b.invariant, b.step, b.link])).toEqual([
      [0, 0, "L-"],
      [1, 0, "L-"],
    ]);
  });

  it("checks regex and JSON Schema invariants", async () => {
    seq = 0;
    const report = await check(
      [
        { kind: "state-regex", path: "status", pattern: "^(open|closed)$" },
        { kind: "state-schema", path: "order", schema: { type: "object", required: ["qty"], properties: { qty: { type: "integer", minimum: 1 } } } },
      ],
      [set("status", "open"), set("order", { qty: 2 }), set("order", { qty: 0 }), set("status", "lost")],
      { status: "open", order: { qty: 1 } },
    );
    expect(report.broken.map((b) => [b.invariant, b.step, b.value])).toEqual([
      [1, 3, { qty: 0 }],
      [0, 4, "lost"],
    ]);
  });

  it("finds an event not followed within K steps at its deadline, a late one at the session's end, and never / at most", async () => {
    seq = 0;
    const within: SceneInvariant = { kind: "followed-by", event: "order.placed", by: "order.confirmed", within: 2 };
    const inTime = await check([within], [event("order.placed"), set("a", 1), event("order.confirmed"), event("order.placed"), event("order.confirmed")]);
    expect(inTime.broken).toEqual([]);
    seq = 0;
    const late = await check([within], [event("order.placed"), set("a", 1), set("a", 2), event("order.confirmed")]);
    expect(late.broken.map((b) => [b.step, b.message])).toEqual([[3, '"order.placed" at step 1 was not followed by "order.confirmed" within 2 step(s)']]);
    seq = 0;
    const ended = await check([{ ...within, within: 5 }], [event("order.placed"), set("a", 1)]);
    expect(ended.broken.map((b) => [b.step, b.seq])).toEqual([[2, 1]]);
    seq = 0;
    const counts = await check(
      [
        { kind: "never", event: "order.cancelled" },
        { kind: "at-most", event: "order.*", times: 2 },
      ],
      [event("order.placed"), event("order.placed"), event("order.cancelled")],
    );
    expect(counts.broken.map((b) => [b.invariant, b.step, b.value])).toEqual([
      [0, 3, "order.cancelled"],
      [1, 3, 3],
    ]);
  });
});
