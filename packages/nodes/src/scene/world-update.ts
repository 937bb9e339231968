import { NodeFailure } from "@weft/types";
import { defineNode } from "../define-node.ts";
import { describeValue, isPlainObject } from "../support/describe-value.ts";
import { sceneCall, sceneService } from "./scene-services.ts";

const OPERATIONS = ["merge", "increment", "append"] as const;
type Operation = (typeof OPERATIONS)[number];

/** Deep merge of plain objects: keys of `patch` win, nested objects merge, anything else is replaced. */
function mergeDeep(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    out[key] = isPlainObject(value) && isPlainObject(out[key]) ? mergeDeep(out[key] as Record<string, unknown>, value) : value;
  }
  return out;
}

function refuse(path: string, what: string): never {
  throw new NodeFailure("INVALID_OPERATION", `${what} Read it with scene:world-get, or replace it with scene:world-set.`, { path });
}

/** The new value of the path for `operation`; `current` is undefined when nothing is there yet. */
function apply(operation: Operation, path: string, current: unknown, value: unknown, amount: number): unknown {
  switch (operation) {
    case "merge":
      if (!isPlainObject(value)) throw new NodeFailure("INVALID_INPUT", `merge needs an object as value (e.g. {"ready": true}), got ${describeValue(value)}.`, { port: "value" });
      if (current !== undefined && current !== null && !isPlainObject(current)) refuse(path, `Cannot merge into "${path}": it holds ${describeValue(current)}, not an object.`);
      return mergeDeep(isPlainObject(current) ? current : {}, value);
    case "increment":
      if (current !== undefined && current !== null && typeof current !== "number") refuse(path, `Cannot increment "${path}": it holds ${describeValue(current)}, not a number.`);
      return ((current as number | null | undefined) ?? 0) + amount;
    case "append":
      if (value === undefined) throw new NodeFailure("INVALID_INPUT", "append needs a value: the item to add at the end of the array.", { port: "value" });
      if (current !== undefined && current !== null && !Array.isArray(current)) refuse(path, `Cannot append to "${path}": it holds ${describeValue(current)}, not an array.`);
      return [...((current as unknown[] | null | undefined) ?? []), value];
    default: {
      const never: never = operation;
      return never;
    }
  }
}

export const worldUpdate = defineNode(
  {
    type: "scene:world-update",
    title: "Update world state",
    description:
      "Changes the scene's shared world state at a path in one atomic step, so agents acting at the same time never lose each other's updates. operation: merge (deep-merge an object into the object there), increment (add amount to the number there; missing counts as 0), append (add value as one item at the end of the array there; missing counts as []). Only works inside a scene.",
    category: "scene",
    inputs: [
      { id: "path", type: "string", required: true, label: "Path", description: "Where to update: keys joined by dots, array indexes in brackets." },
      { id: "operation", type: "string", required: true, options: [...OPERATIONS], label: "Operation", description: "merge, increment or append." },
      { id: "value", type: "json", label: "Value", description: "merge: the object to merge in; append: the item to add. Not used by increment." },
      { id: "amount", type: "number", default: 1, label: "Amount", description: "increment: what to add (negative to subtract); default 1." },
    ],
    outputs: [{ id: "value", type: "json", label: "Value", description: "The value at the path after the update." }],
    flags: { idempotent: false },
  },
  async (inputs, ctx) => {
    const world = sceneService(ctx, "world", "scene:world-update");
    const path = inputs.path as string;
    const operation = inputs.operation as Operation;
    if (!OPERATIONS.includes(operation)) {
      throw new NodeFailure("INVALID_INPUT", `operation must be one of ${OPERATIONS.join(", ")}; got ${describeValue(operation)}.`, { port: "operation" });
    }
    const value = await sceneCall(() => world.update(path, (current) => apply(operation, path, current, inputs.value, inputs.amount as number)));
    return { value };
  },
);
