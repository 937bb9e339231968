import { defineNode } from "../define-node.ts";
import { parsePath, setAtPath } from "../support/paths.ts";

export const setPath = defineNode(
  {
    type: "core:set-path",
    title: "Set by path",
    description:
      "Returns a copy of an object or array with one value set at a path (e.g. user.name or items[0].id); missing objects and arrays along the path are created. The input itself is never changed.",
    category: "data",
    inputs: [
      { id: "value", type: "json", default: {}, label: "Value", description: "The object or array to update (default: an empty object)." },
      { id: "path", type: "string", required: true, label: "Path", description: "Where to set: keys joined by dots, array indexes in brackets. An empty path replaces the whole value." },
      { id: "newValue", type: "any", required: true, label: "New value", description: "The value to put at the path." },
    ],
    outputs: [{ id: "value", type: "json", label: "Value", description: "The updated copy." }],
    flags: { idempotent: true },
  },
  (inputs) => ({ value: setAtPath(inputs.value, parsePath(inputs.path as string), inputs.newValue) }),
);
