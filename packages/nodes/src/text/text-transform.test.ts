import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { textTransform } from "./text-transform.ts";

describe("core:text-transform", () => {
  it("trims both ends by default and keeps the case", async () => {
    expect(await runNode(textTransform, { text: "  Hello World \n" })).toEqual({ text: "Hello World" });
  });
  it.each([
    ["upper", "none", " ab c", " AB C"],
    ["lower", "start", "  ÄB C ", "äb c "],
    ["title", "end", "the old-school LOOM's weft ", "The Old-School Loom's Weft"],
    ["sentence", "both", "hello THERE. how are you? fine", "Hello there. How are you? Fine"],
  ])("case %s, trim %s", async (mode, trim, input, expected) => {
    expect(await runNode(textTransform, { text: input }, { case: mode, trim })).toEqual({ text: expected });
  });
  it("refuses an unknown mode", async () => {
    await expectFailure(runNode(textTransform, { text: "a" }, { case: "shout" }), "INVALID_CONFIG");
  });
});
