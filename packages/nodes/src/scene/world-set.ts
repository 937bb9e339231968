import { defineNode } from "../define-node.ts";
import { jsonInput, sceneCall, sceneService } from "./scene-services.ts";

export const worldSet = defineNode(
  {
    type: "scene:world-set",
    title: "Write world state",
    description:
      "Sets a value in the scene's shared world state at a path (e.g. phase or players[1].ready), creating missing objects and arrays on the way; every agent sees the change. Only works inside a scene.",
    category: "scene",
    inputs: [
      { id: "path", type: "string", required: true, label: "Path", description: "Where to write: keys joined by dots, array indexes in brackets (an index may be at most the array's length)." },
      {
        id: "value",
        type: "json",
        required: true,
        label: "Value",
        description: 'The JSON value to store. Text that is JSON is stored as that value (6 a number, true a boolean, "6" text); other text is stored as it is.',
      },
    ],
    outputs: [{ id: "value", type: "json", label: "Value", description: "The value now stored at the path." }],
    flags: { idempotent: false },
  },
  async (inputs, ctx) => {
    const world = sceneService(ctx, "world", "scene:world-set");
    const path = inputs.path as string;
    const value = jsonInput(inputs.value);
    await sceneCall(() => world.set(path, value));
    return { value };
  },
);
