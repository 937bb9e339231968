import { defineNode } from "../define-node.ts";
import { sceneCall, sceneService } from "./scene-services.ts";

export const publishEvent = defineNode(
  {
    type: "scene:publish-event",
    title: "Publish scene event",
    description: "Publishes an event on the scene's event bus; every agent subscribed to a matching topic is woken with it. The topic is namespace.name, e.g. task.created. Only works inside a scene.",
    category: "scene",
    inputs: [
      { id: "topic", type: "string", required: true, label: "Topic", description: "namespace.name: two or more segments of letters, digits, _ or - joined by dots (no wildcards)." },
      { id: "payload", type: "json", label: "Payload", description: "JSON data sent with the event (null when not given)." },
    ],
    outputs: [{ id: "topic", type: "string", label: "Topic", description: "The topic that was published." }],
    flags: { idempotent: false },
  },
  async (inputs, ctx) => {
    const events = sceneService(ctx, "events", "scene:publish-event");
    const topic = inputs.topic as string;
    await sceneCall(() => events.publish(topic, inputs.payload ?? null));
    return { topic };
  },
);
