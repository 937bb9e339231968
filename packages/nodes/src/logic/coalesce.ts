import { NodeFailure } from "@weft/types";
import { defineNode } from "../define-node.ts";

export const coalesce = defineNode(
  {
    type: "core:coalesce",
    title: "First available",
    description:
      "Outputs the first value that is present (not null) among the connected ones, in connection order. It runs even when some of them come from skipped or failed branches, which makes it the place where the branches of an if/else or switch join again.",
    category: "logic",
    inputs: [{ id: "values", type: "any", multi: true, required: true, label: "Values", description: "The candidates, in order of preference." }],
    outputs: [
      { id: "value", type: "any", label: "Value", description: "The first present value." },
      { id: "index", type: "integer", label: "Index", description: "Which candidate it was (0 is the first connected)." },
    ],
    flags: { idempotent: true, acceptsPartialInputs: true },
  },
  (inputs) => {
    const values = inputs.values as unknown[];
    const index = values.findIndex((v) => v !== null && v !== undefined);
    if (index < 0) {
      throw new NodeFailure("NO_VALUE", `None of the ${values.length} connected values is present (all were empty, skipped or failed).`, {
        count: values.length,
      });
    }
    return { value: values[index], index };
  },
);
