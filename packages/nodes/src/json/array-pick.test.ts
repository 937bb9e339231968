import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { arrayPick } from "./array-pick.ts";

const items = ["a", "b", "c", "d"];

describe("core:array-pick", () => {
  it("picks one item by index, negative from the end; only `item` is produced", async () => {
    expect(await runNode(arrayPick, { items, index: 1 })).toEqual({ item: "b" });
    expect(await runNode(arrayPick, { items, index: -1 })).toEqual({ item: "d" });
    expect(await runNode(arrayPick, { items })).toEqual({ item: "a" });
  });
  it("slices in slice mode; only `items` is produced", async () => {
    expect(await runNode(arrayPick, { items, start: 1, end: 3 }, { mode: "slice" })).toEqual({ items: ["b", "c"] });
    expect(await runNode(arrayPick, { items, start: -2 }, { mode: "slice" })).toEqual({ items: ["c", "d"] });
    expect(await runNode(arrayPick, { items, start: 10 }, { mode: "slice" })).toEqual({ items: [] });
  });
  it("fails with INDEX_OUT_OF_RANGE giving the valid range", async () => {
    const failure = await expectFailure(runNode(arrayPick, { items, index: 4 }), "INDEX_OUT_OF_RANGE");
    expect(failure.message).toBe("Index 4 is outside the array of 4 items: use 0 to 3, or -1 to -4 from the end.");
    await expectFailure(runNode(arrayPick, { items: [], index: 0 }), "INDEX_OUT_OF_RANGE");
    await expectFailure(runNode(arrayPick, { items, index: -5 }), "INDEX_OUT_OF_RANGE");
  });
  it("refuses a fractional index", async () => {
    await expectFailure(runNode(arrayPick, { items, index: 0.5 }), "INVALID_INPUT");
  });
});
