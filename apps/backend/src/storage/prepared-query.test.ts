import { describe, expect, it } from "vitest";
import { powerOfTwoChunks } from "./prepared-query.ts";

const sizes = (count: number, max: number) =>
  [
    ...powerOfTwoChunks(
      Array.from({ length: count }, (_, i) => i),
      max,
    ),
  ].map((chunk) => chunk.length);

describe("powerOfTwoChunks", () => {
  it("cuts rows into power-of-two chunks, largest first, each row once and in order", () => {
    expect(sizes(93, 500)).toEqual([64, 16, 8, 4, 1]);
    expect(sizes(0, 500)).toEqual([]);
    expect(sizes(1300, 500)).toEqual([256, 256, 256, 256, 256, 16, 4]);
    expect([...powerOfTwoChunks([1, 2, 3], 2)]).toEqual([[1, 2], [3]]);
  });
});
