import { defineNode } from "../define-node.ts";
import { sceneCall, sceneService } from "./scene-services.ts";

export const worldGet = defineNode(
  {
    type: "scene:world-get",
    title: "Read world state",
    description: 'Reads the scene\'s shared world state at a path, e.g. score, players[0].name or items["key.with.dots"]. An empty path gives the whole world state. Only works inside a scene.',
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
    const world = sceneService(ctx, "world", "scene:world-get");
    const value = await sceneCall(async () => world.get(inputs.path as string));
    return { value: value === undefined ? (inputs.default ?? null) : value, found: value !== undefined };
  },
);
