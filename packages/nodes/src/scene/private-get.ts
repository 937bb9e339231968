import { defineNode } from "../define-node.ts";
import { sceneCall, sceneService } from "./scene-services.ts";

export const privateGet = defineNode(
  {
    type: "scene:private-get",
    title: "Read private state",
    description: "Reads the calling agent's own private state at a path (e.g. notes or plan.steps[0]); other agents cannot see it. An empty path gives all of it. Only works inside a scene.",
    category: "scene",
    inputs: [
      { id: "path", type: "string", default: "", label: "Path", description: "Where to read: keys joined by dots, array indexes in brackets; empty for everything." },
      { id: "default", type: "any", label: "Default", description: "Returned when nothing is at the path (otherwise null)." },
    ],
    outputs: [
      { id: "value", type: "any", label: "Value", description: "The value at the path, or the default." },
      { id: "found", type: "boolean", label: "Found", description: "Whether something was at the path." },
    ],
    flags: { idempotent: false },
  },
  async (inputs, ctx) => {
    const state = sceneService(ctx, "privateState", "scene:private-get");
    const value = await sceneCall(async () => state.get(inputs.path as string));
    return { value: value === undefined ? (inputs.default ?? null) : value, found: value !== undefined };
  },
);
