import { describe, expect, it } from "vitest";
import { NodeFailure } from "@weft/types";
import { formatPath, getAtPath, parsePath, setAtPath } from "./paths.ts";

function failureOf(fn: () => unknown): NodeFailure {
  try {
    fn();
  } catch (e) {
    if (e instanceof NodeFailure) return e;
    throw e;
  }
  throw new Error("expected a NodeFailure");
}

describe("parsePath", () => {
  it("reads dots, indexes and quoted keys", () => {
    expect(parsePath("")).toEqual([]);
    expect(parsePath("a.b[2].c")).toEqual(["a", "b", 2, "c"]);
    expect(parsePath('items["key.with.dots"][0]')).toEqual(["items", "key.with.dots", 0]);
    expect(parsePath("[1]['x']")).toEqual([1, "x"]);
    expect(parsePath('a["say \\"hi\\""]')).toEqual(["a", 'say "hi"']);
  });

  it.each([
    ["a..b", 2, "empty key"],
    ["a.", 2, "ends with a dot"],
    ["a[x]", 2, "expected an index"],
    ["a[1", 3, 'expected "]"'],
    ['a["x', 4, "unterminated quoted key"],
    ["a[0]b", 4, 'expected "." or "["'],
  ])("refuses %s at position %i", (path, position, what) => {
    const failure = failureOf(() => parsePath(path));
    expect(failure.code).toBe("INVALID_PATH");
    expect(failure.details).toEqual({ path, position });
    expect(failure.message).toContain(what);
  });

  it("formats back to the same syntax", () => {
    expect(formatPath(["a", 0, "b.c"])).toBe('a[0]["b.c"]');
  });
});

describe("getAtPath", () => {
  const doc = { user: { name: "Ada", tags: ["x", "y"] }, n: null };
  it("finds nested values, including null ones", () => {
    expect(getAtPath(doc, parsePath("user.tags[1]"))).toEqual({ found: true, value: "y" });
    expect(getAtPath(doc, parsePath("user.tags.0"))).toEqual({ found: true, value: "x" });
    expect(getAtPath(doc, parsePath("n"))).toEqual({ found: true, value: null });
    expect(getAtPath(doc, [])).toEqual({ found: true, value: doc });
  });
  it("reports missing steps without throwing", () => {
    expect(getAtPath(doc, parsePath("user.age")).found).toBe(false);
    expect(getAtPath(doc, parsePath("user.tags[5]")).found).toBe(false);
    expect(getAtPath(doc, parsePath("user.name.first")).found).toBe(false);
    expect(getAtPath(doc, parsePath("toString")).found).toBe(false);
  });
});

describe("setAtPath", () => {
  it("copies only along the path and leaves the input unchanged", () => {
    const doc = { a: { b: 1 }, other: { deep: true } };
    const out = setAtPath(doc, parsePath("a.c"), 2) as typeof doc & { a: { c: number } };
    expect(out).toEqual({ a: { b: 1, c: 2 }, other: { deep: true } });
    expect(doc).toEqual({ a: { b: 1 }, other: { deep: true } });
    expect(out.other).toBe(doc.other);
  });
  it("creates missing objects and arrays, padding arrays with null", () => {
    expect(setAtPath(undefined, parsePath("list[2].name"), "z")).toEqual({ list: [null, null, { name: "z" }] });
    expect(setAtPath([1], parsePath("[0]"), 9)).toEqual([9]);
  });
  it("refuses to step into a scalar, naming where", () => {
    const failure = failureOf(() => setAtPath({ a: { b: "text" } }, parsePath("a.b.c"), 1));
    expect(failure.code).toBe("PATH_CONFLICT");
    expect(failure.message).toBe('Cannot set "a.b.c": a.b is a string ("text"); only objects and arrays can hold a value.');
    expect(failureOf(() => setAtPath({ a: [] }, parsePath("a.x"), 1)).message).toContain("an array has no key");
  });
});
