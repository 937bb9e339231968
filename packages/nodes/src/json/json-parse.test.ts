import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { jsonParse } from "./json-parse.ts";

describe("core:json-parse", () => {
  it("parses any JSON value", async () => {
    expect(await runNode(jsonParse, { text: '{"a": [1, true, null, "x"]}' })).toEqual({ value: { a: [1, true, null, "x"] } });
    expect(await runNode(jsonParse, { text: " 42 " })).toEqual({ value: 42 });
  });

  it("names the line and column of the problem, with the line and a caret", async () => {
    const failure = await expectFailure(runNode(jsonParse, { text: '{\n  "a": 1,\n  "b": bad\n}' }), "INVALID_JSON");
    expect(failure.message).toBe('Invalid JSON at line 3, column 8: unexpected text (found "bad").\n    "b": bad\n         ^');
    expect(failure.details).toEqual({ line: 3, column: 8, offset: 19, reason: "InvalidSymbol" });
  });

  it.each([
    ['{"a":', 1, 6, "expected a value"],
    ["[1,2,]", 1, 6, 'a comma before "]" (JSON allows no trailing comma)'],
    ['{"a": 1,\n}', 2, 1, 'a comma before "}"'],
    ['{"a":1} x', 1, 9, 'unexpected text (found "x")'],
    ["{'a': 1}", 1, 2, `unexpected text (found "'a'")`],
    ['{"a":1,,}', 1, 8, "expected a property name in double quotes"],
    ["[1 2]", 1, 4, 'expected ","'],
    ["// note\n{}", 1, 1, "comments are not allowed"],
  ])("locates the error in %j", async (text, line, column, reason) => {
    const failure = await expectFailure(runNode(jsonParse, { text }), "INVALID_JSON");
    expect(failure.details).toMatchObject({ line, column });
    expect(failure.message).toContain(reason);
  });

  it("says so when the text is empty", async () => {
    const failure = await expectFailure(runNode(jsonParse, { text: "  " }), "INVALID_JSON");
    expect(failure.message).toBe("Invalid JSON: the text is empty. Give a JSON value such as {} or [].");
  });

  it("requires text", async () => {
    await expectFailure(runNode(jsonParse, {}), "INVALID_INPUT");
  });
});
