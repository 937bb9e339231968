import { NodeFailure } from "@weft/types";
import { defineNode } from "../define-node.ts";
import { deepEqual } from "../support/deep-equal.ts";
import { getAtPath, parsePath } from "../support/paths.ts";
import { isTruthy } from "../support/truthy.ts";

export const arrayFilter = defineNode(
  {
    type: "core:array-filter",
    title: "Filter array",
    description:
      'Keeps the items of an array whose value at a path (e.g. status, or user.age; empty for the item itself) equals a given value, or — when no value is given — is truthy (not false, null, 0, empty text, "false", an empty array or object). Invert keeps the others.',
    category: "data",
    inputs: [
      { id: "items", type: "array", required: true, label: "Array", description: "The array to filter." },
      { id: "path", type: "string", default: "", label: "Path", description: "What to test in each item; empty tests the item itself." },
      { id: "equals", type: "any", label: "Equals", description: "Keep items whose value at the path equals this (compared as JSON); when not given, keep truthy ones." },
      { id: "invert", type: "boolean", default: false, label: "Invert", description: "Keep the items that do not pass instead." },
    ],
    outputs: [
      { id: "items", type: "array", label: "Kept", description: "The items that passed, in order." },
      { id: "count", type: "integer", label: "Count", description: "How many items passed." },
    ],
    flags: { idempotent: true },
  },
  (inputs) => {
    const path = inputs.path as string;
    const segments = parsePath(path);
    const byValue = Object.hasOwn(inputs, "equals");
    const items = (inputs.items as unknown[]).filter((item, index) => {
      const { found, value } = getAtPath(item, segments);
      if (!found && segments.length > 0 && (typeof item !== "object" || item === null)) {
        throw new NodeFailure(
          "INVALID_INPUT",
          `Item ${index} of the array is ${item === null ? "null" : `a ${typeof item}`}, so it has no ${JSON.stringify(path)}: filter an array of objects, or clear the path to test items themselves.`,
          { index, path },
        );
      }
      const passes = byValue ? found && deepEqual(value, inputs.equals) : found && isTruthy(value);
      return passes !== inputs.invert;
    });
    return { items, count: items.length };
  },
);
