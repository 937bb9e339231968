import { observationsSinceUser, streamedAction, streamedReply, type WireMessage } from "../../../../../bench/support/instant-llm.ts";
import { scriptedModel } from "../../scenes/testing/scripted-model.ts";
import { ProfileIdAnswerSchema } from "../../testing/answers.ts";

/** The last message a person sent (not an observation fed back to the agent). */
function lastUserText(messages: readonly WireMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "user" && !m.content?.startsWith("Observation:")) return m.content ?? "";
  }
  return "";
}

/**
 * A seller that over-sells, as a model would, whatever the stock: it notes the customer (step 1), takes 3 off `stock`
 * (step 2), publishes `order.placed` (step 3) and, unless told "without confirming", `order.confirmed` (step 4).
 */
export function overSeller(messages: WireMessage[]): string {
  switch (observationsSinceUser(messages)) {
    case 0:
      return streamedAction("scene_world_set", { path: "customer", value: "ann" });
    case 1:
      return streamedAction("scene_world_update", { path: "stock", operation: "increment", amount: -3 });
    case 2:
      return streamedAction("scene_publish_event", { topic: "order.placed", payload: "{}" });
    case 3:
      return lastUserText(messages).includes("without confirming") ? streamedReply("Placed, not confirmed.") : streamedAction("scene_publish_event", { topic: "order.confirmed", payload: "{}" });
    default:
      return streamedReply("Sold.");
  }
}

/** What the helper calls: a test server, or an e2e test's API client. */
interface Caller {
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
}

/** The "shop" scene: one seller agent on the over-selling model, `stock` 5 to start with. */
export async function createShopScene(t: Caller, sceneId = "shop"): Promise<{ requests: () => number; stop: () => Promise<void> }> {
  const model = scriptedModel(overSeller);
  const profile = await t.call("POST", "/api/llm-profiles", { name: `seller-model-${sceneId}`, baseUrl: model.baseUrl, model: "m", maxRetries: 0 });
  if (profile.status !== 201) throw new Error(`the LLM profile was refused: ${JSON.stringify(profile.body)}`);
  const agent = await t.call("POST", "/api/agents", {
    id: `seller-${sceneId}`,
    name: "Seller",
    deliberationWorkflowId: "agent-deliberation",
    llmProfileId: ProfileIdAnswerSchema.parse(profile.body).profile.id,
    tools: ["scene:world-set", "scene:world-update", "scene:publish-event"],
    maxSteps: 8,
  });
  if (agent.status !== 201) throw new Error(`the agent was refused: ${JSON.stringify(agent.body)}`);
  const scene = await t.call("POST", "/api/scenes", { id: sceneId, name: "Shop", agents: [{ instanceId: "seller", profileId: `seller-${sceneId}` }], initialWorldState: { stock: 5 } });
  if (scene.status !== 201) throw new Error(`the scene was refused: ${JSON.stringify(scene.body)}`);
  return { requests: model.requests, stop: model.stop };
}
