import { defineNode } from "../define-node.ts";

export const textSplit = defineNode(
  {
    type: "core:text-split",
    title: "Split text",
    description: "Splits a text into an array of pieces at every occurrence of a separator (default: a newline). An empty separator splits into characters.",
    category: "text",
    inputs: [
      { id: "text", type: "string", required: true, label: "Text", description: "The text to split." },
      { id: "separator", type: "string", default: "\n", label: "Separator", description: "Where to cut (literal text, not a pattern)." },
      { id: "trim", type: "boolean", default: false, label: "Trim pieces", description: "Remove spaces around each piece." },
      { id: "removeEmpty", type: "boolean", default: false, label: "Remove empty", description: "Leave out pieces that are empty (after trimming)." },
    ],
    outputs: [
      { id: "items", type: "array", label: "Pieces", description: "The pieces, in order." },
      { id: "count", type: "integer", label: "Count", description: "How many pieces." },
    ],
    flags: { idempotent: true },
  },
  (inputs) => {
    let items = (inputs.text as string).split(inputs.separator as string);
    if (inputs.trim) items = items.map((s) => s.trim());
    if (inputs.removeEmpty) items = items.filter((s) => s !== "");
    return { items, count: items.length };
  },
);
