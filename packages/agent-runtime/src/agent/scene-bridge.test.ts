import { afterEach, describe, expect, it } from "vitest";
import { SceneRuntime } from "../scene/index.ts";
import type { AgentInstance } from "./agent-instance.ts";
import { sceneDeliberate, triggerMessage } from "./scene-bridge.ts";
import { action, createAgentHarness, say, type AgentHarness } from "./testing/agent-harness.ts";

let h: AgentHarness;
let scene: SceneRuntime | undefined;
afterEach(async () => {
  await scene?.stop();
  await h?.stop();
});

describe("agents in a scene", () => {
  it("wakes the agent on a user message; it sees the world state and writes the scene's private state", async () => {
    h = await createAgentHarness({ turns: [say(action("scene_private_set", { path: "seen", value: "sunny" })), say("It is sunny.")] });
    const agents = new Map<string, AgentInstance>();
    scene = new SceneRuntime({
      scene: { id: "s1", name: "S1", agents: [{ instanceId: "a1", profileId: "tester" }], initialWorldState: { weather: "sunny" } },
      profileOf: () => ({ subscribedEvents: [] }),
      deliberate: sceneDeliberate((id) => agents.get(id)),
    });
    agents.set("a1", await h.create({ tools: ["scene:world-get", "scene:private-set"] }, { instanceId: "a1" }));
    scene.start();
    scene.sendMessage("a1", "What is the weather?");
    await scene.whenIdle();

    const system = String(h.request(0)[0]!.content);
    expect(system).toContain('WORLD_STATE (shared by every agent in the scene)\n{\n "weather": "sunny"\n}');
    expect(h.request(0).at(-1)).toEqual({ role: "user", content: "What is the weather?" });
    expect(scene.privateState("a1").get("seen")).toBe("sunny");
    expect(agents.get("a1")!.privateState.get("seen")).toBeUndefined();
    expect(scene.log.entries().some((e) => e.kind === "deliberation.finished" && e.ok)).toBe(true);
    const outputs = scene.log.entries().filter((e) => e.kind === "llm.output");
    expect(outputs.map((e) => e.kind === "llm.output" && [e.instanceId, e.triggerId, e.step])).toEqual([
      ["a1", "t1", 1],
      ["a1", "t1", 2],
    ]);
    expect(outputs[1]).toMatchObject({ text: "It is sunny." });
  });

  it("tells the agent which event or timer woke it", () => {
    const event = triggerMessage({ id: "t1", at: 0, coalesced: 2, kind: "event", topic: "task.created", payload: { id: 7 }, source: "a2", eventSeq: 3 });
    expect(event).toBe('EVENT\n- topic: task.created\n- from: a2\n- payload: {"id":7}\n(2 earlier triggers were merged into this one)');
    expect(triggerMessage({ id: "t2", at: 0, coalesced: 0, kind: "timer", timerId: "tick", tick: 4, message: "look around" })).toBe("TIMER\n- timer: tick\n- tick: 4\nlook around");
  });
});
