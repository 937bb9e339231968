import { defineNode } from "../define-node.ts";

export const constNumber = defineNode(
  {
    type: "core:const-number",
    title: "Number",
    description: "Outputs a fixed number set in the node's settings.",
    category: "constants",
    outputs: [{ id: "value", type: "number", label: "Number", description: "The configured number." }],
    config: [{ id: "value", kind: "number", default: 0, label: "Number", description: "The number to output." }],
    flags: { idempotent: true },
  },
  (_inputs, ctx) => ({ value: ctx.config.value }),
);
