import { NodeFailure } from "@weft/types";
import { defineNode } from "../define-node.ts";

export const arrayPick = defineNode(
  {
    type: "core:array-pick",
    title: "Pick from array",
    description:
      "Takes one item of an array by index (mode index: negative counts from the end, -1 is the last) or a part of it (mode slice: from start up to, not including, end). Only the output of the chosen mode is produced.",
    category: "data",
    inputs: [
      { id: "items", type: "array", required: true, label: "Array", description: "The array to pick from." },
      { id: "index", type: "integer", default: 0, label: "Index", description: "Mode index: which item (0 is the first, -1 the last)." },
      { id: "start", type: "integer", default: 0, label: "Start", description: "Mode slice: first index taken (negative counts from the end)." },
      { id: "end", type: "integer", label: "End", description: "Mode slice: index to stop before (negative counts from the end); the array's end when not given." },
    ],
    outputs: [
      { id: "item", type: "any", label: "Item", description: "Mode index: the picked item." },
      { id: "items", type: "array", label: "Items", description: "Mode slice: the picked part." },
    ],
    config: [{ id: "mode", kind: "select", options: ["index", "slice"], default: "index", label: "Mode", description: "Pick one item, or a slice." }],
    flags: { idempotent: true },
  },
  (inputs, ctx) => {
    const items = inputs.items as unknown[];
    if (ctx.config.mode === "slice") return { items: items.slice(inputs.start as number, inputs.end as number | undefined) };
    const index = inputs.index as number;
    const at = index < 0 ? items.length + index : index;
    if (at < 0 || at >= items.length) {
      throw new NodeFailure(
        "INDEX_OUT_OF_RANGE",
        `Index ${index} is outside the array of ${items.length} item${items.length === 1 ? "" : "s"}: use 0 to ${items.length - 1}, or -1 to -${items.length} from the end.`,
        { index, length: items.length },
      );
    }
    return { item: items[at] };
  },
);
