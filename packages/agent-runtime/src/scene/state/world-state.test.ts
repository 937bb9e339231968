import { describe, expect, it } from "vitest";
import { WorldStateError, type RunEventDraft, type WorldChange } from "@weft/types";
import { WorldState } from "./world-state.ts";

async function refusal(promise: Promise<unknown>): Promise<WorldStateError> {
  const err = await promise.then(
    () => {
      throw new Error("expected the write to be refused");
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorldStateError);
  return err as WorldStateError;
}

describe("WorldState", () => {
  it("gets, sets and deletes by path, creating objects and arrays on the way", async () => {
    const world = new WorldState({ initial: { a: { b: [1, 2, { c: "x" }] } } });
    expect(world.get("a.b[2].c")).toBe("x");
    expect(world.get("a.missing.deeper")).toBeUndefined();
    expect(world.get("a.b[2].c.length")).toBeUndefined();

    await world.set("a.b[2].c", "y");
    await world.set("players[0].name", "ann");
    await world.set('labels["x.y"]', true);
    expect(world.snapshot()).toEqual({ a: { b: [1, 2, { c: "y" }] }, players: [{ name: "ann" }], labels: { "x.y": true } });

    expect(await world.delete("a.b[0]")).toBe(true);
    expect(world.get("a.b")).toEqual([2, { c: "y" }]);
    expect(await world.delete("nothing.here")).toBe(false);
    await world.set("", { fresh: 1 });
    expect(world.snapshot()).toEqual({ fresh: 1 });
  });

  it("refuses an invalid path precisely and leaves the state as it was", async () => {
    const world = new WorldState({ initial: { n: 5, list: [] } });
    const bad = await refusal(world.set("a..b", 1));
    expect(bad.code).toBe("INVALID_PATH");
    expect(() => world.get("x[")).toThrow(/Invalid path "x\[" at position 1: unclosed "\["/);

    const conflict = await refusal(world.set("n.inner", 1));
    expect(conflict.code).toBe("PATH_CONFLICT");
    expect(conflict.message).toContain('"n.inner"');
    expect(conflict.message).toContain("n holds a number, not an object");

    const pastEnd = await refusal(world.set("list[3]", 1));
    expect(pastEnd.message).toContain("index 3 is past the end of list (length 0)");
    const nested = await refusal(world.set("fresh.arr[2].x", 1));
    expect(nested.code).toBe("PATH_CONFLICT");
    const root = await refusal(world.set("", [1]));
    expect(root.message).toContain("The whole state must be an object");
    expect(world.snapshot()).toEqual({ n: 5, list: [] });
  });

  it.each([
    ["a function", () => 1, "is a function"],
    ["undefined", undefined, "is undefined"],
    ["NaN", Number.NaN, "NaN is not a finite number"],
    ["a nested Infinity", { deep: [Infinity] }, "value at deep[0]"],
    ["a Date", { when: new Date(0) }, "Date instance"],
    ["a nested undefined", { a: { b: undefined } }, "value at a.b"],
    ["a bigint", 10n, "bigint"],
  ])("refuses %s with a clear error", async (_name, value, message) => {
    const world = new WorldState();
    const err = await refusal(world.set("x", value));
    expect(err.code).toBe("NOT_JSON");
    expect(err.message).toContain(message);
    expect(err.message).toContain("JSON only");
    expect(world.snapshot()).toEqual({});
  });

  it("refuses a cycle", async () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const err = await refusal(new WorldState().set("x", cyclic));
    expect(err.message).toContain("the value at self");
    expect(err.message).toContain("cycle");
  });

  it("keeps no link to values written or read: snapshots and gets are deep copies", async () => {
    const world = new WorldState();
    const value = { list: [1, 2] };
    await world.set("v", value);
    value.list.push(3);
    const read = world.get("v") as { list: number[] };
    read.list.push(4);
    const snap = world.snapshot() as { v: { list: number[] } };
    snap.v.list.push(5);
    expect(world.get("v.list")).toEqual([1, 2]);
  });

  it("loses no update when 200 increments from several agents run concurrently", async () => {
    const world = new WorldState({ initial: { counter: 0 } });
    const agents = ["ann", "bob", "cy", "dee"];
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        world.update(
          "counter",
          async (n) => {
            // Yield between the read and the write: without serialised writes, updates would be lost here.
            await new Promise((r) => setTimeout(r, 0));
            return (n as number) + 1;
          },
          agents[i % agents.length],
        ),
      ),
    );
    expect(world.get("counter")).toBe(200);
    const byAgent = new Map<string, number>();
    for (const c of world.history()) byAgent.set(c.agentId ?? "", (byAgent.get(c.agentId ?? "") ?? 0) + 1);
    expect(Object.fromEntries(byAgent)).toEqual({ ann: 50, bob: 50, cy: 50, dee: 50 });
  });

  it("applies writes in call order and survives a failing update", async () => {
    const world = new WorldState();
    const failing = world.update("x", () => {
      throw new Error("boom");
    });
    const after = world.set("x", "after");
    await expect(failing).rejects.toThrow("boom");
    await after;
    expect(world.get("x")).toBe("after");
    expect(await world.update("x", (v) => `${v as string}!`)).toBe("after!");
  });

  it("emits world.changed with the path, value and agent, and numbers each change in a bounded history", async () => {
    const drafts: RunEventDraft[] = [];
    const changes: WorldChange[] = [];
    const world = new WorldState({ initial: { hp: 10 }, emit: (d) => drafts.push(d), onChange: (c) => changes.push(c), historyLimit: 3, clock: () => 42 });
    await world.set("hp", 9, "goblin");
    await world.update("hp", (v) => (v as number) - 1, "goblin");
    await world.set("log[0]", "hit");
    await world.delete("hp", "healer");
    expect(drafts).toEqual([
      { type: "world.changed", path: "hp", value: 9, op: "set", agentId: "goblin" },
      { type: "world.changed", path: "hp", value: 8, op: "set", agentId: "goblin" },
      { type: "world.changed", path: "log[0]", value: "hit", op: "set" },
      { type: "world.changed", path: "hp", value: null, op: "delete", agentId: "healer" },
    ]);
    expect(changes.map((c) => c.seq)).toEqual([1, 2, 3, 4]);
    expect(world.history()).toEqual([
      { seq: 2, op: "set", path: "hp", before: 9, after: 8, agentId: "goblin", ts: 42 },
      { seq: 3, op: "set", path: "log[0]", after: "hit", ts: 42 },
      { seq: 4, op: "delete", path: "hp", before: 8, agentId: "healer", ts: 42 },
    ]);
    expect(world.version).toBe(4);
  });

  it("continues from saved data", async () => {
    const world = new WorldState();
    await world.set("a", 1, "x");
    const restored = new WorldState();
    restored.load({ document: world.snapshot(), seq: world.version, history: world.history() });
    await restored.set("b", 2);
    expect(restored.snapshot()).toEqual({ a: 1, b: 2 });
    expect(restored.history().map((c) => c.seq)).toEqual([1, 2]);
  });
});
