import { NodeFailure } from "@weft/types";
import { defineNode } from "../define-node.ts";
import { deepEqual } from "../support/deep-equal.ts";
import { describeValue, isPlainObject } from "../support/describe-value.ts";
import { compileRegex } from "../support/regex.ts";

const OPERATORS = ["==", "!=", "<", "<=", ">", ">=", "contains", "matches"] as const;
type Operator = (typeof OPERATORS)[number];

function order(a: unknown, b: unknown, op: Operator): number {
  if ((typeof a === "number" && typeof b === "number") || (typeof a === "string" && typeof b === "string")) {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  throw new NodeFailure("INVALID_INPUT", `"${op}" compares two numbers or two texts, but got ${describeValue(a)} and ${describeValue(b)}. Convert one side first, or use "==".`, { operator: op });
}

function contains(a: unknown, b: unknown): boolean {
  if (typeof a === "string") {
    if (typeof b !== "string") throw new NodeFailure("INVALID_INPUT", `"contains" on a text needs a text to look for, got ${describeValue(b)}.`, { operator: "contains" });
    return a.includes(b);
  }
  if (Array.isArray(a)) return a.some((item) => deepEqual(item, b));
  if (isPlainObject(a)) {
    if (typeof b !== "string") throw new NodeFailure("INVALID_INPUT", `"contains" on an object looks for a key, which must be a text; got ${describeValue(b)}.`, { operator: "contains" });
    return Object.hasOwn(a, b);
  }
  throw new NodeFailure("INVALID_INPUT", `"contains" needs a text, an array or an object on the left, got ${describeValue(a)}.`, { operator: "contains" });
}

function evaluate(op: Operator, a: unknown, b: unknown): boolean {
  switch (op) {
    case "==":
      return deepEqual(a, b);
    case "!=":
      return !deepEqual(a, b);
    case "<":
      return order(a, b, op) < 0;
    case "<=":
      return order(a, b, op) <= 0;
    case ">":
      return order(a, b, op) > 0;
    case ">=":
      return order(a, b, op) >= 0;
    case "contains":
      return contains(a, b);
    case "matches":
      if (typeof a !== "string" || typeof b !== "string") {
        throw new NodeFailure("INVALID_INPUT", `"matches" tests a text (a) against a regular expression (b), got ${describeValue(a)} and ${describeValue(b)}.`, {
          operator: op,
        });
      }
      return compileRegex(b, "").test(a);
    default: {
      const never: never = op;
      return never;
    }
  }
}

export const compare = defineNode(
  {
    type: "core:compare",
    title: "Compare",
    description:
      "Compares a with b and outputs true or false. == and != compare any values as JSON; <, <=, >, >= compare two numbers or two texts; contains tests a text for a substring, an array for an item or an object for a key; matches tests a text against a regular expression given in b.",
    category: "logic",
    inputs: [
      { id: "a", type: "any", required: true, label: "A", description: "The left-hand value." },
      { id: "b", type: "any", label: "B", description: "The right-hand value (null when not given)." },
    ],
    outputs: [{ id: "result", type: "boolean", label: "Result", description: "Whether `a <operator> b` holds." }],
    config: [{ id: "operator", kind: "select", options: [...OPERATORS], default: "==", label: "Operator", description: "How to compare." }],
    flags: { idempotent: true },
  },
  (inputs, ctx) => ({ result: evaluate(ctx.config.operator as Operator, inputs.a, inputs.b ?? null) }),
);
