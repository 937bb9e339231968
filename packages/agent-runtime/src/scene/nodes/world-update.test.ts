import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../../../../nodes/src/testing/harness.ts";
import { testScene } from "../testing/test-scene.ts";
import { worldUpdate } from "../../../../nodes/src/scene/world-update.ts";

function scene() {
  const runtime = testScene({ ann: "p", bob: "p" }, { initialWorldState: { score: 1, tags: ["a"], team: { name: "red", colors: { main: "red" } }, label: "x" } });
  return { runtime, ann: runtime.servicesFor("ann"), bob: runtime.servicesFor("bob") };
}

describe("scene:world-update", () => {
  it("merges objects deeply, increments numbers and appends items", async () => {
    const { runtime, ann } = scene();
    const run = (inputs: Record<string, unknown>) => runNode(worldUpdate, inputs, {}, { services: ann });
    expect(await run({ path: "team", operation: "merge", value: { size: 3, colors: { trim: "gold" } } })).toEqual({
      value: { name: "red", colors: { main: "red", trim: "gold" }, size: 3 },
    });
    expect(await run({ path: "score", operation: "increment", amount: 4 })).toEqual({ value: 5 });
    expect(await run({ path: "score", operation: "increment", amount: -2 })).toEqual({ value: 3 });
    expect(await run({ path: "fresh.count", operation: "increment" })).toEqual({ value: 1 });
    expect(await run({ path: "tags", operation: "append", value: { b: 1 } })).toEqual({ value: ["a", { b: 1 }] });
    expect(await run({ path: "log", operation: "append", value: "first" })).toEqual({ value: ["first"] });
    expect(runtime.world.history().every((c) => c.agentId === "ann")).toBe(true);
  });

  it("loses no update when two agents update the same path at once", async () => {
    const { runtime, ann, bob } = scene();
    await Promise.all(Array.from({ length: 60 }, (_, i) => runNode(worldUpdate, { path: "hits", operation: "increment" }, {}, { services: i % 2 ? ann : bob })));
    expect(runtime.world.get("hits")).toBe(60);
  });

  it("says why an operation does not fit the value at the path, and changes nothing", async () => {
    const { runtime, ann } = scene();
    const run = (inputs: Record<string, unknown>) => runNode(worldUpdate, inputs, {}, { services: ann });
    const inc = await expectFailure(run({ path: "label", operation: "increment" }), "INVALID_OPERATION");
    expect(inc.message).toBe('Cannot increment "label": it holds a string ("x"), not a number. Read it with scene:world-get, or replace it with scene:world-set.');
    expect((await expectFailure(run({ path: "score", operation: "append", value: 1 }), "INVALID_OPERATION")).message).toContain("not an array");
    expect((await expectFailure(run({ path: "tags", operation: "merge", value: { a: 1 } }), "INVALID_OPERATION")).message).toContain("not an object");
    expect((await expectFailure(run({ path: "team", operation: "merge", value: 5 }), "INVALID_INPUT")).message).toContain("merge needs an object");
    expect((await expectFailure(run({ path: "tags", operation: "append" }), "INVALID_INPUT")).message).toContain("append needs a value");
    expect((await expectFailure(run({ path: "team", operation: "explode" }), "INVALID_INPUT")).message).toContain("operation must be one of merge, increment, append");
    expect((await expectFailure(run({ path: "a..b", operation: "increment" }), "INVALID_PATH")).message).toContain("empty key");
    expect(runtime.world.history()).toEqual([]);
  });

  it("names the missing service outside a scene", async () => {
    const err = await expectFailure(runNode(worldUpdate, { path: "a", operation: "increment" }), "MISSING_SERVICE");
    expect(err.message).toContain("ctx.services.world");
  });
});
