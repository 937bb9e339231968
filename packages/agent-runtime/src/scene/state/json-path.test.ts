import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { WorldStateError } from "@weft/types";
import { formatPath, parsePath, type PathSegment } from "./json-path.ts";

function pathError(path: string): WorldStateError {
  try {
    parsePath(path);
  } catch (err) {
    if (err instanceof WorldStateError) return err;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(path)} to be refused`);
}

describe("parsePath", () => {
  it("reads keys, indexes and quoted keys", () => {
    expect(parsePath("")).toEqual([]);
    expect(parsePath("a")).toEqual(["a"]);
    expect(parsePath("a.b[2].c")).toEqual(["a", "b", 2, "c"]);
    expect(parsePath("[0][1]")).toEqual([0, 1]);
    expect(parsePath('items["key.with.dots"].x')).toEqual(["items", "key.with.dots", "x"]);
    expect(parsePath("m['it\\'s']")).toEqual(["m", "it's"]);
    expect(parsePath("a.0")).toEqual(["a", "0"]);
    expect(parsePath("player-1.hp")).toEqual(["player-1", "hp"]);
    expect(parsePath("team.John Smith")).toEqual(["team", "John Smith"]);
  });

  it.each([
    ["a..b", 2, "empty key"],
    [".a", 0, "empty key"],
    ["a.", 2, "trailing dot"],
    ["a[x]", 2, '"x" is not an array index'],
    ["a[-1]", 2, "not an array index"],
    ["a[]", 2, "empty brackets"],
    ["a[1", 1, 'unclosed "["'],
    ['a["x', 1, "unterminated quoted key"],
    ["a[0]b", 4, 'expected "." or "["'],
    ['a"b', 0, "contains a quote"],
    ["__proto__.x", 0, '"__proto__" is not allowed'],
  ])("refuses %j with the position and the reason", (path, position, reason) => {
    const err = pathError(path);
    expect(err.code).toBe("INVALID_PATH");
    expect(err.message).toContain(`at position ${position}`);
    expect(err.message).toContain(reason);
    expect(err.message).toContain("a.b[2].c");
  });

  it("formats canonically and round-trips any segments", () => {
    expect(formatPath(["a", "b", 2, "c"])).toBe("a.b[2].c");
    expect(formatPath(["x.y", 0, 'q"\\'])).toBe('["x.y"][0]["q\\"\\\\"]');
    expect(formatPath(["team", "John Smith"])).toBe('team["John Smith"]');
    const segment = fc.oneof(
      fc.nat({ max: 1000 }),
      fc.string({ minLength: 1 }).filter((s) => s !== "__proto__"),
    );
    fc.assert(
      fc.property(fc.array(segment as fc.Arbitrary<PathSegment>, { maxLength: 6 }), (segments) => {
        expect(parsePath(formatPath(segments))).toEqual(segments);
      }),
    );
  });
});
