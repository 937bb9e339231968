import { NodeFailure } from "@weft/types";
import { defineNode } from "../define-node.ts";
import { describeValue, isPlainObject } from "../support/describe-value.ts";

function deepMerge(target: Record<string, unknown>, source: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...target };
  for (const [key, value] of Object.entries(source)) {
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value;
  }
  return out;
}

export const mergeObjects = defineNode(
  {
    type: "core:merge-objects",
    title: "Merge objects",
    description:
      "Merges several objects into one; for a key present in more than one, the later object wins. Deep mode merges nested objects key by key instead of replacing them (arrays are still replaced).",
    category: "data",
    inputs: [
      { id: "objects", type: "json", multi: true, required: true, label: "Objects", description: "The objects to merge, in order; null values are skipped." },
      { id: "deep", type: "boolean", default: false, label: "Deep", description: "Merge nested objects too." },
    ],
    outputs: [{ id: "value", type: "json", label: "Merged", description: "The merged object (a new object; the inputs are unchanged)." }],
    flags: { idempotent: true },
  },
  (inputs) => {
    let merged: Record<string, unknown> = {};
    (inputs.objects as unknown[]).forEach((item, index) => {
      if (item === null || item === undefined) return;
      if (!isPlainObject(item)) {
        throw new NodeFailure("INVALID_INPUT", `Input "objects" of core:merge-objects takes objects only, but item ${index} is ${describeValue(item)}.`, {
          port: "objects",
          index,
        });
      }
      merged = inputs.deep ? deepMerge(merged, item) : { ...merged, ...item };
    });
    return { value: merged };
  },
);
