import { describe, expect, it } from "vitest";
import { LineSplitter } from "./ndjson.ts";

describe("LineSplitter", () => {
  it("gives each line once it is complete, whatever the chunks, and the last one at the end", () => {
    const s = new LineSplitter();
    expect(s.push('{"a":')).toEqual([]);
    expect(s.push('1}\n{"b":2}\n\n{"c"')).toEqual(['{"a":1}', '{"b":2}']);
    expect(s.push(":3}")).toEqual([]);
    expect(s.end()).toEqual(['{"c":3}']);
    expect(s.end()).toEqual([]);
  });
});
