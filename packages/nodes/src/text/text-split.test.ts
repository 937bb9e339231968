import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { textSplit } from "./text-split.ts";

describe("core:text-split", () => {
  it("splits on newlines by default", async () => {
    expect(await runNode(textSplit, { text: "a\nb\n" })).toEqual({ items: ["a", "b", ""], count: 3 });
  });
  it("trims pieces and removes empty ones when asked", async () => {
    expect(await runNode(textSplit, { text: " a , ,b ", separator: ",", trim: true, removeEmpty: true })).toEqual({ items: ["a", "b"], count: 2 });
  });
  it("treats the separator literally and splits into characters on an empty one", async () => {
    expect(await runNode(textSplit, { text: "a.b.c", separator: "." })).toEqual({ items: ["a", "b", "c"], count: 3 });
    expect(await runNode(textSplit, { text: "abc", separator: "" })).toEqual({ items: ["a", "b", "c"], count: 3 });
  });
  it("requires a text", async () => {
    await expectFailure(runNode(textSplit, { text: ["a"] }), "INVALID_INPUT");
  });
});
