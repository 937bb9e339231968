import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { math } from "./math.ts";

async function calc(op: string, a: number, b?: number): Promise<unknown> {
  return (await runNode(math, b === undefined ? { a } : { a, b }, { op })).result;
}

describe("core:math", () => {
  it.each([
    ["add", 2, 3, 5],
    ["subtract", 2, 3, -1],
    ["multiply", 2.5, 4, 10],
    ["divide", 7, 2, 3.5],
    ["modulo", 7, 3, 1],
    ["power", 2, 10, 1024],
    ["min", 2, -3, -3],
    ["max", 2, -3, 2],
  ])("%s(%d, %d) = %d", async (op, a, b, expected) => {
    expect(await calc(op, a, b)).toBe(expected);
  });

  it.each([
    ["round", 2.5, undefined, 3],
    ["round", 1.005, 2, 1.01],
    ["round", -1.2345, 3, -1.234],
    ["floor", -1.5, undefined, -2],
    ["ceil", 1.2, undefined, 2],
    ["abs", -4, undefined, 4],
  ])("%s(%d, %s) = %d", async (op, a, b, expected) => {
    expect(await calc(op, a, b)).toBe(expected);
  });

  it("fails with DIVISION_BY_ZERO for divide and modulo by 0", async () => {
    const failure = await expectFailure(runNode(math, { a: 1, b: 0 }, { op: "divide" }), "DIVISION_BY_ZERO");
    expect(failure.message).toBe("Cannot divide 1 by zero: b must not be 0.");
    await expectFailure(runNode(math, { a: 1, b: 0 }, { op: "modulo" }), "DIVISION_BY_ZERO");
  });

  it("asks for b when a two-operand operation lacks it", async () => {
    const failure = await expectFailure(runNode(math, { a: 1 }, { op: "add" }), "INVALID_INPUT");
    expect(failure.message).toBe('Operation "add" needs input b: connect a number to it or set a value.');
  });

  it("refuses results that are not finite numbers and bad decimal places", async () => {
    await expectFailure(runNode(math, { a: 10, b: 400 }, { op: "power" }), "INVALID_RESULT");
    await expectFailure(runNode(math, { a: -8, b: 0.5 }, { op: "power" }), "INVALID_RESULT");
    await expectFailure(runNode(math, { a: 1, b: 1.5 }, { op: "round" }), "INVALID_INPUT");
  });

  it("refuses non-numbers and unknown operations", async () => {
    await expectFailure(runNode(math, { a: "1", b: 2 }, { op: "add" }), "INVALID_INPUT");
    await expectFailure(runNode(math, { a: 1, b: 2 }, { op: "sqrt" }), "INVALID_CONFIG");
  });
});
