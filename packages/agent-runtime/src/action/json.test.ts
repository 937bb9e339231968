import { describe, expect, it } from "vitest";
import { safeJson } from "./json.ts";

describe("safeJson", () => {
  it("is JSON.stringify for plain values, indented when asked", () => {
    const value = { a: [1, "two", null], b: { c: true } };
    expect(safeJson(value)).toBe(JSON.stringify(value));
    expect(safeJson(value, 1)).toBe(JSON.stringify(value, null, 1));
    expect(safeJson(undefined)).toBe("null");
  });

  it("writes bigints as strings, cuts cycles and names what JSON cannot hold, never throwing", () => {
    expect(safeJson({ n: 12n, list: [1n] })).toBe('{"n":"12","list":["1"]}');
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    expect(safeJson(cyclic)).toBe('{"name":"loop","self":"[circular]"}');
    expect(safeJson({ n: 1n, self: cyclic, f: () => 1 })).toContain('"n":"1"');
  });
});
