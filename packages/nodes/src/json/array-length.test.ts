import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { arrayLength } from "./array-length.ts";

describe("core:array-length", () => {
  it("counts items", async () => {
    expect(await runNode(arrayLength, { items: [1, null, [2]] })).toEqual({ length: 3 });
    expect(await runNode(arrayLength, { items: [] })).toEqual({ length: 0 });
  });
  it("refuses something that is not an array", async () => {
    const failure = await expectFailure(runNode(arrayLength, { items: "abc" }), "INVALID_INPUT");
    expect(failure.message).toBe('input "items" of core:array-length expects an array, got a string ("abc").');
  });
});
