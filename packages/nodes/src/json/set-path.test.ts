import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { setPath } from "./set-path.ts";

describe("core:set-path", () => {
  it("returns an updated copy and leaves the input unchanged", async () => {
    const value = { user: { name: "Ada" }, tags: ["a"] };
    const out = await runNode(setPath, { value, path: "user.age", newValue: 36 });
    expect(out).toEqual({ value: { user: { name: "Ada", age: 36 }, tags: ["a"] } });
    expect(value).toEqual({ user: { name: "Ada" }, tags: ["a"] });
  });
  it("starts from an empty object and creates what is missing", async () => {
    expect(await runNode(setPath, { path: "a.list[1]", newValue: "x" })).toEqual({ value: { a: { list: [null, "x"] } } });
  });
  it("replaces the whole value for an empty path", async () => {
    expect(await runNode(setPath, { value: { a: 1 }, path: "", newValue: [1] })).toEqual({ value: [1] });
  });
  it("fails with PATH_CONFLICT when the path goes through a scalar", async () => {
    const failure = await expectFailure(runNode(setPath, { value: { a: 5 }, path: "a.b", newValue: 1 }), "PATH_CONFLICT");
    expect(failure.message).toBe('Cannot set "a.b": a is the number 5; only objects and arrays can hold a value.');
  });
  it("requires a path and a value to set", async () => {
    await expectFailure(runNode(setPath, { value: {}, newValue: 1 }), "INVALID_INPUT");
    await expectFailure(runNode(setPath, { value: {}, path: "a" }), "INVALID_INPUT");
  });
});
