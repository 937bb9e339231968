import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { arrayFilter } from "./array-filter.ts";

const tasks = [
  { id: 1, status: "done", owner: { name: "ada" }, tags: ["x"] },
  { id: 2, status: "open", owner: { name: "bo" }, tags: [] },
  { id: 3, status: "done", owner: null, tags: ["y"] },
];

describe("core:array-filter", () => {
  it("keeps items whose value at the path equals the given value", async () => {
    const out = await runNode(arrayFilter, { items: tasks, path: "status", equals: "done" });
    expect((out.items as typeof tasks).map((t) => t.id)).toEqual([1, 3]);
    expect(out.count).toBe(2);
  });
  it("compares structured values as JSON, and can look for null", async () => {
    expect((await runNode(arrayFilter, { items: tasks, path: "tags", equals: ["y"] })).count).toBe(1);
    expect(((await runNode(arrayFilter, { items: tasks, path: "owner", equals: null })).items as typeof tasks)[0].id).toBe(3);
  });
  it("keeps truthy values when no value is given, and the others when inverted", async () => {
    expect(((await runNode(arrayFilter, { items: tasks, path: "tags" })).items as typeof tasks).map((t) => t.id)).toEqual([1, 3]);
    expect(((await runNode(arrayFilter, { items: tasks, path: "owner.name", invert: true })).items as typeof tasks).map((t) => t.id)).toEqual([3]);
    expect(await runNode(arrayFilter, { items: [0, 1, "", "a", null, "false"] })).toEqual({ items: [1, "a"], count: 2 });
  });
  it("explains a path applied to items that are not objects", async () => {
    const failure = await expectFailure(runNode(arrayFilter, { items: [{ a: 1 }, 5], path: "a" }), "INVALID_INPUT");
    expect(failure.message).toContain('Item 1 of the array is a number, so it has no "a"');
  });
});
