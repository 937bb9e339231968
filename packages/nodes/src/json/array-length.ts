import { defineNode } from "../define-node.ts";

export const arrayLength = defineNode(
  {
    type: "core:array-length",
    title: "Array length",
    description: "Counts the items of an array (its length).",
    category: "data",
    inputs: [{ id: "items", type: "array", required: true, label: "Array", description: "The array to count." }],
    outputs: [{ id: "length", type: "integer", label: "Length", description: "The number of items." }],
    flags: { idempotent: true },
  },
  (inputs) => ({ length: (inputs.items as unknown[]).length }),
);
