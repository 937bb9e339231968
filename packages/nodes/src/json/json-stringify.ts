import { defineNode } from "../define-node.ts";

export const jsonStringify = defineNode(
  {
    type: "core:json-stringify",
    title: "To JSON text",
    description: "Writes a value as JSON text, compact or indented.",
    category: "data",
    inputs: [
      { id: "value", type: "json", required: true, label: "Value", description: "The value to write." },
      { id: "indent", type: "integer", default: 0, min: 0, max: 10, label: "Indent", description: "Spaces per indentation level; 0 writes everything on one line." },
    ],
    outputs: [{ id: "text", type: "string", label: "JSON text", description: "The JSON text." }],
    flags: { idempotent: true },
  },
  (inputs) => ({ text: JSON.stringify(inputs.value, null, (inputs.indent as number) || undefined) }),
);
