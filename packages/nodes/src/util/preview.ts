import { defineNode } from "../define-node.ts";

const PREVIEW_CHARS = 500;

function preview(value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}… (${text.length} chars)` : text;
}

export const previewNode = defineNode(
  {
    type: "core:preview",
    title: "Preview",
    description: "Passes a value through unchanged and records it (debug log, and the run's observation) so it can be inspected in the run debugger.",
    category: "util",
    inputs: [{ id: "value", type: "any", required: true, label: "Value", description: "The value to show." }],
    outputs: [{ id: "value", type: "any", label: "Value", description: "The same value." }],
    config: [{ id: "label", kind: "text", default: "", label: "Label", description: "A name to find this preview by in the log." }],
    flags: { idempotent: false },
  },
  (inputs, ctx) => {
    ctx.log.debug("preview", { nodeId: ctx.nodeId, ...(ctx.config.label ? { label: ctx.config.label } : {}), value: preview(inputs.value) });
    return { value: inputs.value };
  },
);
