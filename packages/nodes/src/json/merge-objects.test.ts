import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { mergeObjects } from "./merge-objects.ts";

describe("core:merge-objects", () => {
  it("merges in order, later keys winning, shallow by default", async () => {
    const a = { x: 1, nested: { p: 1 } };
    const out = await runNode(mergeObjects, { objects: [a, null, { y: 2, nested: { q: 2 } }] });
    expect(out).toEqual({ value: { x: 1, y: 2, nested: { q: 2 } } });
    expect(a).toEqual({ x: 1, nested: { p: 1 } });
  });
  it("merges nested objects in deep mode, replacing arrays", async () => {
    const out = await runNode(mergeObjects, { objects: [{ n: { p: 1, list: [1, 2] } }, { n: { q: 2, list: [3] } }], deep: true });
    expect(out).toEqual({ value: { n: { p: 1, q: 2, list: [3] } } });
  });
  it("refuses a non-object, naming its position", async () => {
    const failure = await expectFailure(runNode(mergeObjects, { objects: [{}, [1]] }), "INVALID_INPUT");
    expect(failure.message).toBe('Input "objects" of core:merge-objects takes objects only, but item 1 is an array of 1 item.');
  });
  it("needs at least one connection", async () => {
    await expectFailure(runNode(mergeObjects, {}), "INVALID_INPUT");
  });
});
