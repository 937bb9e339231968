import { defineNode } from "../define-node.ts";

/** Fixed outputs keep the spec static, so the editor and the engine need no per-node port logic. */
const CASES = ["case1", "case2", "case3", "case4"] as const;

function asKey(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

export const switchNode = defineNode(
  {
    type: "core:switch",
    title: "Switch",
    description:
      "Routes a value to one of up to four named cases: the key is compared (as text) with the names set for case1…case4, and the value goes out on the first case whose name equals the key, or on `default` when none does. Only that output is produced, so the nodes after the others are skipped.",
    category: "logic",
    inputs: [
      { id: "key", type: "any", required: true, label: "Key", description: "Selects the case, e.g. a category name." },
      { id: "value", type: "any", label: "Value", description: "What to pass on to the chosen case; the key itself when not given." },
    ],
    outputs: [
      ...CASES.map((id, i) => ({ id, type: "any" as const, label: `Case ${i + 1}`, description: `The value, when the key equals the name set for case ${i + 1}.` })),
      { id: "default", type: "any", label: "Default", description: "The value, when the key matches no case." },
    ],
    config: CASES.map((id, i) => ({
      id,
      kind: "text" as const,
      default: "",
      label: `Case ${i + 1} name`,
      description: `The key that selects output case${i + 1}; leave empty to disable this case.`,
    })),
    flags: { idempotent: true },
  },
  (inputs, ctx) => {
    const key = asKey(inputs.key);
    const value = Object.hasOwn(inputs, "value") ? inputs.value : inputs.key;
    const chosen = CASES.find((id) => ctx.config[id] !== "" && ctx.config[id] === key) ?? "default";
    return { [chosen]: value };
  },
);
