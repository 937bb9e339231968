import { defineNode } from "../define-node.ts";
import { getAtPath, parsePath } from "../support/paths.ts";

export const getPath = defineNode(
  {
    type: "core:get-path",
    title: "Get by path",
    description: 'Reads a value inside an object or array by path, e.g. user.name, items[0].id or data["key.with.dots"]. An empty path gives the whole value.',
    category: "data",
    inputs: [
      { id: "value", type: "json", required: true, label: "Value", description: "The object or array to read from." },
      { id: "path", type: "string", default: "", label: "Path", description: "Where to read: keys joined by dots, array indexes in brackets." },
      { id: "default", type: "any", label: "Default", description: "Returned when nothing is at the path (otherwise null)." },
    ],
    outputs: [
      { id: "value", type: "any", label: "Value", description: "The value at the path, or the default." },
      { id: "found", type: "boolean", label: "Found", description: "Whether something was at the path." },
    ],
    flags: { idempotent: true },
  },
  (inputs) => {
    const { found, value } = getAtPath(inputs.value, parsePath(inputs.path as string));
    return { value: found ? value : (inputs.default ?? null), found };
  },
);
