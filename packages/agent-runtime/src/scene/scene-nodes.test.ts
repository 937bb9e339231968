/**
 * The scene nodes of @weft/nodes, run the way an agent's <ACTION> runs them: as single-node
 * workflows through the ExecutionEngine, with a real SceneRuntime's services for one agent.
 * (Each node's own behaviour is tested next to it in packages/nodes/src/scene.)
 */
import { describe, expect, it } from "vitest";
import { createBuiltinRegistry, sceneNodes } from "@weft/nodes";
import { nodeInputsJsonSchema, type AgentTrigger, type NodeServices, type RunEvent, type RunResult } from "@weft/types";
import { ExecutionEngine } from "../engine/index.ts";
import { SceneRuntime } from "./runtime/scene-runtime.ts";

const engine = new ExecutionEngine({ catalog: createBuiltinRegistry() });

function sceneWith(woken: string[] = []) {
  const events: RunEvent[] = [];
  const runtime = new SceneRuntime({
    scene: {
      id: "nodes",
      name: "Nodes",
      agents: [
        { instanceId: "ann", profileId: "p" },
        { instanceId: "bob", profileId: "listener" },
      ],
      initialWorldState: { tags: ["a"], team: { name: "red", size: 2 }, label: "x" },
    },
    profileOf: (_id, agent) => (agent.profileId === "listener" ? { subscribedEvents: ["task.*"] } : {}),
    deliberate: async (id, trigger: AgentTrigger) => {
      woken.push(`${id} ${trigger.kind === "event" ? `${trigger.topic} ${JSON.stringify(trigger.payload)} from ${trigger.source}` : trigger.kind}`);
    },
    onEvent: (e) => events.push(e),
  });
  runtime.start();
  return { runtime, events };
}

function run(type: string, params: Record<string, unknown>, services: NodeServices): Promise<RunResult> {
  return engine.run(engine.singleNodeWorkflow(type, params), { services });
}

async function ok(type: string, params: Record<string, unknown>, services: NodeServices): Promise<Record<string, unknown>> {
  const result = await run(type, params, services);
  expect(result.error).toBeUndefined();
  expect(result.status).toBe("completed");
  return result.outputs;
}

async function failure(type: string, params: Record<string, unknown>, services: NodeServices) {
  const result = await run(type, params, services);
  expect(result.status).toBe("failed");
  return result.observations[0].error!;
}

describe("scene nodes as agent actions", () => {
  it("declare typed ports and clear descriptions for agents", () => {
    expect(sceneNodes.map((n) => n.spec.type)).toEqual(["scene:world-get", "scene:world-set", "scene:world-update", "scene:private-get", "scene:private-set", "scene:publish-event"]);
    for (const node of sceneNodes) {
      expect(node.spec.description).toMatch(/Only works inside a scene\.$/);
      expect(node.spec.flags.idempotent).toBe(false);
    }
    const update = nodeInputsJsonSchema(sceneNodes[2].spec) as { properties: Record<string, { enum?: unknown[] }>; required: string[] };
    expect(update.properties.operation.enum).toEqual(["merge", "increment", "append"]);
    expect(update.required).toEqual(["path", "operation"]);
  });

  it("fail with MISSING_SERVICE naming the service outside a scene", async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["scene:world-get", {}, "ctx.services.world"],
      ["scene:world-set", { path: "a", value: 1 }, "ctx.services.world"],
      ["scene:world-update", { path: "a", operation: "increment" }, "ctx.services.world"],
      ["scene:private-get", {}, "ctx.services.privateState"],
      ["scene:private-set", { path: "a", value: 1 }, "ctx.services.privateState"],
      ["scene:publish-event", { topic: "a.b" }, "ctx.services.events"],
    ];
    for (const [type, params, service] of cases) {
      const error = await failure(type, params, {});
      expect(error.code).toBe("MISSING_SERVICE");
      expect(error.message).toContain(`${type} needs the scene's`);
      expect(error.message).toContain(service);
    }
  });

  it("change the world as the calling agent, and concurrent actions lose no update", async () => {
    const { runtime, events } = sceneWith();
    const services = runtime.servicesFor("ann");
    expect(await ok("scene:world-set", { path: "team.size", value: 3 }, services)).toEqual({ value: 3 });
    expect(await ok("scene:world-update", { path: "tags", operation: "append", value: "b" }, services)).toEqual({ value: ["a", "b"] });
    expect(events.filter((e) => e.type === "world.changed")).toMatchObject([
      { streamId: "nodes", path: "team.size", value: 3, agentId: "ann" },
      { streamId: "nodes", path: "tags", value: ["a", "b"], agentId: "ann" },
    ]);

    const results = await Promise.all(Array.from({ length: 40 }, () => run("scene:world-update", { path: "hits", operation: "increment" }, services)));
    expect(results.every((r) => r.status === "completed")).toBe(true);
    expect(runtime.world.get("hits")).toBe(40);
    const err = await failure("scene:world-update", { path: "label", operation: "increment" }, services);
    expect(err).toMatchObject({ code: "INVALID_OPERATION", details: { path: "label" } });
  });

  it("scene:publish-event wakes subscribed agents as coming from the caller, and refuses a bad topic", async () => {
    const woken: string[] = [];
    const { runtime } = sceneWith(woken);
    expect(await ok("scene:publish-event", { topic: "task.created", payload: { id: 7 } }, runtime.servicesFor("ann"))).toEqual({ topic: "task.created" });
    await runtime.whenIdle();
    expect(woken).toEqual(['bob task.created {"id":7} from ann']);
    const bad = await failure("scene:publish-event", { topic: "created" }, runtime.servicesFor("ann"));
    expect(bad.code).toBe("INVALID_TOPIC");
    expect(bad.message).toContain("namespace.name");
  });
});
