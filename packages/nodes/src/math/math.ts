import { NodeFailure } from "@weft/types";
import { defineNode } from "../define-node.ts";

const BINARY = ["add", "subtract", "multiply", "divide", "modulo", "power", "min", "max"] as const;
const UNARY = ["round", "floor", "ceil", "abs"] as const;
type Op = (typeof BINARY)[number] | (typeof UNARY)[number];

function apply(op: Op, a: number, b: number | undefined): number {
  const needB = (): number => {
    if (b === undefined) throw new NodeFailure("INVALID_INPUT", `Operation "${op}" needs input b: connect a number to it or set a value.`, { port: "b", op });
    return b;
  };
  switch (op) {
    case "add":
      return a + needB();
    case "subtract":
      return a - needB();
    case "multiply":
      return a * needB();
    case "divide":
    case "modulo": {
      const divisor = needB();
      if (divisor === 0) throw new NodeFailure("DIVISION_BY_ZERO", `Cannot ${op === "divide" ? "divide" : "take the remainder of"} ${a} by zero: b must not be 0.`, { op, a });
      return op === "divide" ? a / divisor : a % divisor;
    }
    case "power":
      return a ** needB();
    case "min":
      return Math.min(a, needB());
    case "max":
      return Math.max(a, needB());
    case "round": {
      // b = decimal places; scaling through the exponent avoids 1.005 * 100 = 100.49999.
      const places = b ?? 0;
      if (!Number.isInteger(places) || places < 0 || places > 15) {
        throw new NodeFailure("INVALID_INPUT", `For "round", b is the number of decimal places (an integer from 0 to 15), got ${places}.`, { port: "b", op });
      }
      return Number(Math.round(Number(`${a}e${places}`)) + `e-${places}`);
    }
    case "floor":
      return Math.floor(a);
    case "ceil":
      return Math.ceil(a);
    case "abs":
      return Math.abs(a);
    default: {
      const never: never = op;
      return never;
    }
  }
}

export const math = defineNode(
  {
    type: "core:math",
    title: "Math",
    description:
      "Computes a number from a and b: add, subtract, multiply, divide, modulo (remainder), power (a to the b), min, max; or from a alone: round (to b decimal places, 0 when not given), floor, ceil, abs. Division by zero fails.",
    category: "math",
    inputs: [
      { id: "a", type: "number", required: true, label: "A", description: "The first operand." },
      { id: "b", type: "number", label: "B", description: "The second operand (for round: decimal places)." },
    ],
    outputs: [{ id: "result", type: "number", label: "Result", description: "The result." }],
    config: [{ id: "op", kind: "select", options: [...BINARY, ...UNARY], default: "add", label: "Operation", description: "What to compute." }],
    flags: { idempotent: true },
  },
  (inputs, ctx) => {
    const op = ctx.config.op as Op;
    const a = inputs.a as number;
    const result = apply(op, a, inputs.b as number | undefined);
    if (!Number.isFinite(result)) {
      throw new NodeFailure("INVALID_RESULT", `${op}(${a}${inputs.b === undefined ? "" : `, ${String(inputs.b)}`}) is not a finite number (${result}).`, { op, result: String(result) });
    }
    return { result };
  },
);
