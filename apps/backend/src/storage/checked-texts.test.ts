import { describe, expect, it } from "vitest";
import { CheckedTexts } from "./checked-texts.ts";

describe("CheckedTexts", () => {
  const counting = () => {
    const checked: string[] = [];
    return { checked, check: (data: string) => (checked.push(data), { ...(JSON.parse(data) as object), defaulted: true }) };
  };

  it("checks a text once while it is unchanged, and answers with what the check gave", () => {
    const texts = new CheckedTexts();
    const { checked, check } = counting();
    expect(texts.decode("a", '{"x":1}', check)).toEqual({ x: 1, defaulted: true });
    expect(texts.decode("a", '{"x":1}', check)).toEqual({ x: 1, defaulted: true });
    expect(checked).toEqual(['{"x":1}']);
    expect(texts.decode("a", '{"x":2}', check)).toEqual({ x: 2, defaulted: true });
    expect(checked).toEqual(['{"x":1}', '{"x":2}']);
  });

  it("keeps at most its byte limit, dropping the least recently read first", () => {
    const texts = new CheckedTexts(200);
    const { checked, check } = counting();
    const text = (n: number) => JSON.stringify({ pad: "x".repeat(20), n });
    texts.decode("a", text(1), check);
    texts.decode("b", text(2), check);
    texts.decode("a", text(1), check);
    texts.decode("c", text(3), check);
    expect(checked.length).toBe(3);
    texts.decode("a", text(1), check);
    expect(checked.length).toBe(3);
    texts.decode("b", text(2), check);
    expect(checked.length).toBe(4);
    // A text larger than the whole limit is never kept.
    const big = JSON.stringify({ pad: "y".repeat(300) });
    texts.decode("big", big, check);
    texts.decode("big", big, check);
    expect(checked.length).toBe(6);
  });
});
