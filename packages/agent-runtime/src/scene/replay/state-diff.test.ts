import { describe, expect, it } from "vitest";
import { sceneStateDifferences } from "./state-diff.ts";

describe("sceneStateDifferences", () => {
  it("finds nothing in equal states, whatever the key order", () => {
    const a = { world: { board: { note: "x", tags: ["a", "b"] }, n: 1 }, privateStates: { ann: { seen: true } } };
    const b = { world: { n: 1, board: { tags: ["a", "b"], note: "x" } }, privateStates: { ann: { seen: true } } };
    expect(sceneStateDifferences(a, b)).toEqual([]);
  });

  it("names each differing path with both values, a missing side left out, world first then private states", () => {
    const recorded = { world: { board: { note: "open", "a.b": 1 }, list: [1, 2, 3], gone: 1 }, privateStates: { ann: { count: 2 }, bob: {} } };
    const replayed = { world: { board: { note: "closed", "a.b": 1 }, list: [1, 5], added: { x: null } }, privateStates: { ann: { count: 3 }, cid: {} } };
    expect(sceneStateDifferences(recorded, replayed)).toEqual([
      { path: "added", replayed: { x: null } },
      { path: "board.note", recorded: "open", replayed: "closed" },
      { path: "gone", recorded: 1 },
      { path: "list[1]", recorded: 2, replayed: 5 },
      { path: "list[2]", recorded: 3 },
      { instanceId: "ann", path: "count", recorded: 2, replayed: 3 },
      { instanceId: "bob", path: "", recorded: {} },
      { instanceId: "cid", path: "", replayed: {} },
    ]);
  });

  it("stops at a change of shape, quotes keys that need it, and lists at most `max`", () => {
    const diffs = sceneStateDifferences({ world: { "x.y": [1], s: { a: 1 } }, privateStates: {} }, { world: { "x.y": { 0: 1 }, s: "a" }, privateStates: {} });
    expect(diffs).toEqual([
      { path: "s", recorded: { a: 1 }, replayed: "a" },
      { path: '["x.y"]', recorded: [1], replayed: { 0: 1 } },
    ]);
    const many = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, i]));
    expect(sceneStateDifferences({ world: many, privateStates: {} }, { world: {}, privateStates: {} }, 3)).toHaveLength(3);
  });
});
