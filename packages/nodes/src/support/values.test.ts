import { describe, expect, it } from "vitest";
import { deepEqual } from "./deep-equal.ts";
import { describeValue, isPlainObject } from "./describe-value.ts";
import { isTruthy } from "./truthy.ts";

describe("value helpers", () => {
  it("describes values briefly", () => {
    expect(describeValue("x".repeat(50))).toBe(`a string ("${"x".repeat(40)}…")`);
    expect(describeValue([1])).toBe("an array of 1 item");
    expect(describeValue({ a: 1, b: 2 })).toBe('an object with keys "a", "b"');
    expect(describeValue(undefined)).toBe("nothing");
    expect(describeValue(NaN)).toBe("the non-finite number NaN");
  });

  it("knows plain objects from arrays, null and class instances", () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject(Object.create(null))).toBe(true);
    expect(isPlainObject([])).toBe(false);
    expect(isPlainObject(null)).toBe(false);
    expect(isPlainObject(new Date())).toBe(false);
  });

  it("compares JSON values structurally", () => {
    expect(deepEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
    expect(deepEqual({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(deepEqual({ a: undefined }, { b: undefined })).toBe(false);
    expect(deepEqual([1, 2], [2, 1])).toBe(false);
    expect(deepEqual(1, "1")).toBe(false);
    expect(deepEqual(NaN, NaN)).toBe(true);
  });

  it("reads workflow truthiness", () => {
    for (const falsy of [false, null, undefined, 0, "", " ", "false", "FALSE", "0", [], {}]) expect(isTruthy(falsy)).toBe(false);
    for (const truthy of [true, 1, -1, "no", "x", [0], { a: 0 }]) expect(isTruthy(truthy)).toBe(true);
  });
});
