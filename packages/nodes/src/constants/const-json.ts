import { defineNode } from "../define-node.ts";

export const constJson = defineNode(
  {
    type: "core:const-json",
    title: "JSON",
    description: "Outputs a fixed JSON value (object, array, string, number, boolean or null) set in the node's settings.",
    category: "constants",
    outputs: [{ id: "value", type: "json", label: "Value", description: "The configured JSON value (a fresh copy each run)." }],
    config: [{ id: "value", kind: "json", default: null, label: "Value", description: "The JSON value to output." }],
    flags: { idempotent: true },
  },
  // A copy, so a downstream node that mutates its input cannot change the configured value.
  (_inputs, ctx) => ({ value: structuredClone(ctx.config.value) }),
);
