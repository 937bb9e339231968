import { defineNode } from "../define-node.ts";
import { jsonInput, sceneCall, sceneService } from "./scene-services.ts";

export const privateSet = defineNode(
  {
    type: "scene:private-set",
    title: "Write private state",
    description: "Sets a value in the calling agent's own private state at a path (e.g. notes or plan.steps[0]), creating missing objects and arrays on the way. Only works inside a scene.",
    category: "scene",
    inputs: [
      { id: "path", type: "string", required: true, label: "Path", description: "Where to write: keys joined by dots, array indexes in brackets." },
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
    const state = sceneService(ctx, "privateState", "scene:private-set");
    const path = inputs.path as string;
    const value = jsonInput(inputs.value);
    await sceneCall(() => state.set(path, value));
    return { value };
  },
);
