import { defineNode } from "../define-node.ts";
import { isTruthy } from "../support/truthy.ts";

export const ifElse = defineNode(
  {
    type: "core:if-else",
    title: "If / else",
    description:
      'Routes a value to the `true` or the `false` output depending on a condition; only that output is produced, so the nodes after the other one are skipped. The condition counts as false when it is false, null, 0, empty text, "false", "0", an empty array or an empty object.',
    category: "logic",
    inputs: [
      { id: "condition", type: "any", required: true, label: "Condition", description: "Decides the branch." },
      { id: "value", type: "any", label: "Value", description: "What to pass on to the taken branch; the condition itself when not given." },
    ],
    outputs: [
      { id: "true", type: "any", label: "True", description: "The value, when the condition holds." },
      { id: "false", type: "any", label: "False", description: "The value, when the condition does not hold." },
    ],
    flags: { idempotent: true },
  },
  (inputs) => {
    const value = Object.hasOwn(inputs, "value") ? inputs.value : inputs.condition;
    return isTruthy(inputs.condition) ? { true: value } : { false: value };
  },
);
