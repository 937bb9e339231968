import { defineNode } from "../define-node.ts";

export const constBoolean = defineNode(
  {
    type: "core:const-boolean",
    title: "Boolean",
    description: "Outputs a fixed true or false set in the node's settings.",
    category: "constants",
    outputs: [{ id: "value", type: "boolean", label: "Boolean", description: "The configured boolean." }],
    config: [{ id: "value", kind: "boolean", default: false, label: "Value", description: "The boolean to output." }],
    flags: { idempotent: true },
  },
  (_inputs, ctx) => ({ value: ctx.config.value }),
);
