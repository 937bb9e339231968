import { defineNode } from "../define-node.ts";

function asText(value: unknown): string {
  return typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
}

export const textJoin = defineNode(
  {
    type: "core:text-join",
    title: "Join text",
    description:
      "Joins values into one text with a separator. Connect several values, or one array (arrays are flattened one level); empty values (null) are left out, and objects are written as JSON.",
    category: "text",
    inputs: [
      { id: "items", type: "any", multi: true, required: true, label: "Items", description: "The values to join, in order." },
      { id: "separator", type: "string", default: "\n", label: "Separator", description: "Put between items (default: a newline)." },
    ],
    outputs: [{ id: "text", type: "string", label: "Text", description: "The joined text." }],
    flags: { idempotent: true },
  },
  (inputs) => {
    const items = (inputs.items as unknown[]).flat(1).filter((item) => item !== null && item !== undefined);
    return { text: items.map(asText).join(inputs.separator as string) };
  },
);
