import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { regexReplace } from "./regex-replace.ts";

describe("core:regex-replace", () => {
  it("replaces every match by default, expanding $1 and $<name>", async () => {
    const out = await runNode(regexReplace, { text: "2019-04, 2021-11", pattern: "(?<y>\\d{4})-(\\d{2})", replacement: "$2/$<y>" });
    expect(out).toEqual({ text: "04/2019, 11/2021", count: 2 });
  });
  it("replaces only the first match without g", async () => {
    expect(await runNode(regexReplace, { text: "a a a", pattern: "a", replacement: "b", flags: "" })).toEqual({ text: "b a a", count: 1 });
  });
  it("counts context-dependent matches the way the replacement sees them", async () => {
    expect(await runNode(regexReplace, { text: "cat category", pattern: "\\bcat\\b", replacement: "dog" })).toEqual({ text: "dog category", count: 1 });
    expect(await runNode(regexReplace, { text: "none", pattern: "x" })).toEqual({ text: "none", count: 0 });
  });
  it("deletes matches with the default empty replacement", async () => {
    expect(await runNode(regexReplace, { text: "a  b   c", pattern: "\\s+" })).toEqual({ text: "abc", count: 2 });
  });
  it("fails with INVALID_REGEX on a bad pattern or flag", async () => {
    const failure = await expectFailure(runNode(regexReplace, { text: "x", pattern: "+x" }), "INVALID_REGEX");
    expect(failure.message).toContain("/+x/ at position");
    await expectFailure(runNode(regexReplace, { text: "x", pattern: "x", flags: "z" }), "INVALID_REGEX");
  });
});
