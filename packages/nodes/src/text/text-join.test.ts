import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { textJoin } from "./text-join.ts";

describe("core:text-join", () => {
  it("joins connected values with the separator, flattening arrays and skipping nulls", async () => {
    expect(await runNode(textJoin, { items: ["a", ["b", "c"], null, 4, { k: 1 }], separator: ", " })).toEqual({ text: 'a, b, c, 4, {"k":1}' });
  });
  it("uses a newline by default", async () => {
    expect(await runNode(textJoin, { items: [["x", "y"]] })).toEqual({ text: "x\ny" });
  });
  it("needs something to join", async () => {
    await expectFailure(runNode(textJoin, {}), "INVALID_INPUT");
    await expectFailure(runNode(textJoin, { items: ["a"], separator: 1 }), "INVALID_INPUT");
  });
});
