import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SceneStateViewSchema, type SceneStateView } from "@weft/types";
import { observationsSinceUser, serveModel, streamedAction, streamedReply } from "../../../../bench/support/instant-llm.ts";
import { ProfileIdAnswerSchema } from "../testing/answers.ts";
import { startTestServer, type TestServer } from "../testing/test-server.ts";

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
const AGENTS = 12;

/** An instant model: each woken agent writes the world, tells the town (waking every other agent), then answers. */
let replies = 0;
const llm = serveModel((messages) => {
  const who = /You are (v\d+)/.exec(String(messages[0]?.content))?.[1] ?? "someone";
  const n = ++replies;
  const steps = observationsSinceUser(messages);
  return steps === 0
    ? streamedAction("scene_world_set", { path: `town.${who}`, value: n })
    : steps === 1
      ? streamedAction("scene_publish_event", { topic: "town.said", payload: `{"n":${n}}` })
      : streamedReply("Done.");
});

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ examplesDir: EXAMPLES });
  const profile = ProfileIdAnswerSchema.parse((await t.call("POST", "/api/llm-profiles", { name: "instant", baseUrl: llm.baseUrl, model: "m", maxRetries: 0 })).body);
  const ids = Array.from({ length: AGENTS }, (_, i) => `v${i + 1}`);
  for (const id of ids) {
    const agent = {
      id,
      name: id,
      persona: `You are ${id}, a villager.`,
      deliberationWorkflowId: "agent-deliberation",
      llmProfileId: profile.profile.id,
      tools: ["scene:world-set", "scene:publish-event"],
      subscribedEvents: ["town.*"],
      maxSteps: 4,
    };
    expect((await t.call("POST", "/api/agents", agent)).status).toBe(201);
  }
  const scene = { id: "town", name: "Town", agents: ids.map((id) => ({ instanceId: id, profileId: id })), stepBudget: 90, mailbox: { capacity: 4, overflow: "coalesce" } };
  expect((await t.call("POST", "/api/scenes", scene)).status).toBe(201);
});
afterAll(async () => {
  await t.stop();
  await llm.stop();
});

const settled = (s: SceneStateView) => s.agents.every((a) => a.inFlight === null) && (s.status === "paused" || s.agents.every((a) => a.queue.length === 0));

describe("a busy scene", () => {
  it("lets requests through while its agents keep each other busy: they are answered between its turns, not after it", async () => {
    await t.call("POST", "/api/scenes/town/start");
    await t.call("POST", "/api/scenes/town/messages", { to: "all", text: "Good morning." });
    // Every answer read while the scene still works is one the scene did not hold back until it was done.
    const usedWhenAnswered: number[] = [];
    let state = SceneStateViewSchema.parse((await t.call("GET", "/api/scenes/town/state")).body);
    while (!settled(state)) {
      expect((await t.call("GET", "/api/health")).status).toBe(200);
      state = SceneStateViewSchema.parse((await t.call("GET", "/api/scenes/town/state")).body);
      if (!settled(state)) usedWhenAnswered.push(state.budget.used);
    }
    expect(state.budget.used).toBe(90);
    // Answers came back all along the scene: many times within each wave of deliberations a publish sets off (90
    // deliberations, 12 agents), not once per wave as when a wave's work ran back to back (13 answers then).
    expect(usedWhenAnswered.length).toBeGreaterThanOrEqual(40);
    expect(new Set(usedWhenAnswered).size).toBeGreaterThanOrEqual(5);
    await t.call("POST", "/api/scenes/town/stop");
  });
});
