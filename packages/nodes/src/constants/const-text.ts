import { defineNode } from "../define-node.ts";

export const constText = defineNode(
  {
    type: "core:const-text",
    title: "Text",
    description: "Outputs a fixed piece of text set in the node's settings.",
    category: "constants",
    outputs: [{ id: "value", type: "string", label: "Text", description: "The configured text." }],
    config: [{ id: "value", kind: "multiline", default: "", label: "Text", description: "The text to output." }],
    flags: { idempotent: true },
  },
  (_inputs, ctx) => ({ value: ctx.config.value }),
);
