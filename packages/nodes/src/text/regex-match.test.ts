import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { regexMatch } from "./regex-match.ts";

describe("core:regex-match", () => {
  it("gives the first match, its captures and named groups, and every match", async () => {
    const out = await runNode(regexMatch, { text: "from 2019-04 to 2021-11", pattern: "(?<year>\\d{4})-(\\d{2})" });
    expect(out).toEqual({ matched: true, match: "2019-04", captures: ["2019", "04"], groups: { year: "2019" }, all: ["2019-04", "2021-11"] });
  });
  it("reports no match plainly", async () => {
    expect(await runNode(regexMatch, { text: "abc", pattern: "\\d" })).toEqual({ matched: false, match: "", captures: [], groups: {}, all: [] });
  });
  it("honours flags, including an explicit g", async () => {
    expect((await runNode(regexMatch, { text: "A a", pattern: "a", flags: "i" })).all).toEqual(["A", "a"]);
    expect((await runNode(regexMatch, { text: "A a", pattern: "a", flags: "gi" })).match).toBe("A");
  });
  it("marks optional groups that did not take part as null", async () => {
    expect((await runNode(regexMatch, { text: "ab", pattern: "a(x)?(b)" })).captures).toEqual([null, "b"]);
  });
  it("fails with INVALID_REGEX naming the pattern and position", async () => {
    const failure = await expectFailure(runNode(regexMatch, { text: "x", pattern: "a(b" }), "INVALID_REGEX");
    expect(failure.message).toContain("/a(b/ at position 3");
    expect(failure.details).toMatchObject({ pattern: "a(b", position: 3 });
  });
});
