import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { compare } from "./compare.ts";

async function check(operator: string, a: unknown, b: unknown): Promise<unknown> {
  return (await runNode(compare, { a, b }, { operator })).result;
}

describe("core:compare", () => {
  it("tests equality structurally, with no type juggling", async () => {
    expect(await check("==", { a: [1] }, { a: [1] })).toBe(true);
    expect(await check("==", 1, "1")).toBe(false);
    expect(await check("!=", 1, "1")).toBe(true);
    expect((await runNode(compare, { a: null })).result).toBe(true);
  });
  it("orders two numbers or two texts", async () => {
    expect(await check("<", 2, 10)).toBe(true);
    expect(await check("<=", 3, 3)).toBe(true);
    expect(await check(">", "b", "a")).toBe(true);
    expect(await check(">=", 1, 2)).toBe(false);
  });
  it("refuses to order mixed types, saying what came", async () => {
    const failure = await expectFailure(runNode(compare, { a: "10", b: 2 }, { operator: ">" }), "INVALID_INPUT");
    expect(failure.message).toBe('">" compares two numbers or two texts, but got a string ("10") and the number 2. Convert one side first, or use "==".');
  });
  it("looks inside texts, arrays and objects with contains", async () => {
    expect(await check("contains", "weaving", "eav")).toBe(true);
    expect(await check("contains", [{ k: 1 }, 2], { k: 1 })).toBe(true);
    expect(await check("contains", { key: 1 }, "key")).toBe(true);
    expect(await check("contains", { key: 1 }, "other")).toBe(false);
    await expectFailure(runNode(compare, { a: 5, b: 5 }, { operator: "contains" }), "INVALID_INPUT");
    await expectFailure(runNode(compare, { a: "abc", b: 5 }, { operator: "contains" }), "INVALID_INPUT");
  });
  it("matches a text against a regular expression", async () => {
    expect(await check("matches", "order-1234", "^order-\\d+$")).toBe(true);
    expect(await check("matches", "order-x", "^order-\\d+$")).toBe(false);
    await expectFailure(runNode(compare, { a: "x", b: "(" }, { operator: "matches" }), "INVALID_REGEX");
    await expectFailure(runNode(compare, { a: 1, b: "1" }, { operator: "matches" }), "INVALID_INPUT");
  });
  it("refuses an unknown operator", async () => {
    await expectFailure(runNode(compare, { a: 1, b: 1 }, { operator: "===" }), "INVALID_CONFIG");
  });
});
