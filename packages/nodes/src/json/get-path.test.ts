import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { getPath } from "./get-path.ts";

const doc = { user: { name: "Ada", langs: ["en", "fr"] }, "a.b": 1, zero: 0 };

describe("core:get-path", () => {
  it("reads nested keys, indexes and quoted keys", async () => {
    expect(await runNode(getPath, { value: doc, path: "user.langs[1]" })).toEqual({ value: "fr", found: true });
    expect(await runNode(getPath, { value: doc, path: '["a.b"]' })).toEqual({ value: 1, found: true });
    expect(await runNode(getPath, { value: doc, path: "zero" })).toEqual({ value: 0, found: true });
  });
  it("gives the whole value for an empty path", async () => {
    expect(await runNode(getPath, { value: [1, 2] })).toEqual({ value: [1, 2], found: true });
  });
  it("gives the default (or null) and found=false for a missing path", async () => {
    expect(await runNode(getPath, { value: doc, path: "user.age" })).toEqual({ value: null, found: false });
    expect(await runNode(getPath, { value: doc, path: "user.age", default: 30 })).toEqual({ value: 30, found: false });
  });
  it("refuses a malformed path", async () => {
    const failure = await expectFailure(runNode(getPath, { value: doc, path: "user..name" }), "INVALID_PATH");
    expect(failure.message).toContain("position 5");
  });
});
