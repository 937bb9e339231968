import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { jsonStringify } from "./json-stringify.ts";

describe("core:json-stringify", () => {
  it("writes compact JSON by default", async () => {
    expect(await runNode(jsonStringify, { value: { a: [1, "x"], b: null } })).toEqual({ text: '{"a":[1,"x"],"b":null}' });
    expect(await runNode(jsonStringify, { value: 'q"uote' })).toEqual({ text: '"q\\"uote"' });
  });
  it("indents when asked", async () => {
    expect(await runNode(jsonStringify, { value: { a: 1 }, indent: 2 })).toEqual({ text: '{\n  "a": 1\n}' });
  });
  it("needs a value and a sane indent", async () => {
    await expectFailure(runNode(jsonStringify, {}), "INVALID_INPUT");
    await expectFailure(runNode(jsonStringify, { value: 1, indent: 11 }), "INVALID_INPUT");
    await expectFailure(runNode(jsonStringify, { value: 1, indent: 1.5 }), "INVALID_INPUT");
  });
});
