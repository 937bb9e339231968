import { describe, expect, it } from "vitest";
import type { AgentTrigger, RunEvent, SceneInput } from "@weft/types";
import { SceneRuntime, type Deliberate, type ScenePeerProfile } from "./scene-runtime.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean): Promise<void> {
  while (!check()) await sleep(1);
}
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
const describeTrigger = (t: AgentTrigger) => (t.kind === "event" ? `${t.topic}<${t.source}` : t.kind === "user" ? `user:${t.text}` : `timer:${t.timerId}`);

function sceneOf(agents: Record<string, string>, extra: Partial<SceneInput> = {}): SceneInput {
  return { id: "s1", name: "Test scene", agents: Object.entries(agents).map(([instanceId, profileId]) => ({ instanceId, profileId })), ...extra };
}

function setup(options: { scene: SceneInput; profiles: Record<string, ScenePeerProfile>; deliberate?: Deliberate }) {
  const got: string[] = [];
  const events: RunEvent[] = [];
  const deliberate: Deliberate =
    options.deliberate ??
    (async (id, trigger) => {
      got.push(`${id} ${describeTrigger(trigger)}`);
    });
  const runtime = new SceneRuntime({
    scene: options.scene,
    profileOf: (_id, agent) => options.profiles[agent.profileId],
    deliberate,
    onEvent: (e) => events.push(e),
  });
  return { runtime, got, events };
}

describe("SceneRuntime routing", () => {
  it("wakes the agents whose subscriptions match, never the publisher itself", async () => {
    const { runtime, got } = setup({
      scene: sceneOf({ ann: "tasks", bob: "all", cy: "quiet" }, { triggers: [{ kind: "event", topic: "alert.*", instanceIds: ["cy"] }] }),
      profiles: { tasks: { subscribedEvents: ["task.*"] }, all: { subscribedEvents: ["**"] }, quiet: {} },
    });
    runtime.start();
    await runtime.bus.publish("task.created", { id: 1 });
    await runtime.whenIdle();
    await runtime.bus.publish("alert.fire", null);
    await runtime.whenIdle();
    await runtime.servicesFor("ann").events?.publish("task.done", null);
    await runtime.whenIdle();
    expect(got).toEqual(["ann task.created<system", "bob task.created<system", "bob alert.fire<system", "cy alert.fire<system", "bob task.done<ann"]);
    expect(runtime.subscriptionsOf("cy")).toEqual(["alert.*"]);
  });

  it("sends a user message to one agent or to all, and refuses an unknown agent or empty text", async () => {
    const { runtime, got, events } = setup({ scene: sceneOf({ ann: "p", bob: "p" }), profiles: { p: {} } });
    runtime.start();
    runtime.sendMessage("bob", "hello bob");
    runtime.sendMessage("all", "hello all");
    await runtime.whenIdle();
    expect(got.sort()).toEqual(["ann user:hello all", "bob user:hello all", "bob user:hello bob"]);
    expect(events.filter((e) => e.type === "scene.event").map((e) => e.type === "scene.event" && e.payload)).toEqual([
      { to: "bob", text: "hello bob" },
      { to: "all", text: "hello all" },
    ]);
    expect(() => runtime.sendMessage("zed", "hi")).toThrow(expect.objectContaining({ code: "UNKNOWN_INSTANCE", message: expect.stringContaining("ann, bob") }));
    expect(() => runtime.sendMessage("ann", "  ")).toThrow(expect.objectContaining({ code: "INVALID_MESSAGE" }));
  });

  it("refuses an invalid scene, an unknown profile and a bad subscription pattern, naming them", () => {
    const profiles = { p: {}, bad: { subscribedEvents: ["task..x"] } };
    const make = (scene: SceneInput) => () => setup({ scene, profiles });
    expect(
      make({
        id: "s",
        name: "n",
        agents: [
          { instanceId: "a", profileId: "p" },
          { instanceId: "a", profileId: "p" },
        ],
      }),
    ).toThrow(/instance id "a" is used twice/);
    expect(make(sceneOf({ a: "p" }, { triggers: [{ kind: "timer", everyMs: 5, instanceIds: ["zz"] }] }))).toThrow(/unknown instance "zz"; the scene's agents are: a/);
    expect(make(sceneOf({ a: "nope" }))).toThrow(expect.objectContaining({ code: "UNKNOWN_PROFILE", message: expect.stringContaining('"nope"') }));
    expect(make(sceneOf({ a: "p" }, { initialWorldState: { when: new Date(0) } }))).toThrow(
      expect.objectContaining({ code: "INVALID_SCENE", message: expect.stringContaining("initialWorldState is not valid") }),
    );
    expect(make({ id: "s", name: "n", agents: [{ instanceId: "a", profileId: "p", initialPrivateState: { f: Number.NaN } }] })).toThrow(/initialPrivateState of "a" is not valid.*NaN/);
    expect(make(sceneOf({ a: "bad" }))).toThrow(expect.objectContaining({ code: "INVALID_PATTERN", message: expect.stringContaining('Agent "a" (profile "bad")') }));
  });
});

describe("SceneRuntime triggers", () => {
  it("bounds a ping-pong storm with the step budget, reports it, and continues after a user message", async () => {
    const deliberations: string[] = [];
    const { runtime, events } = setup({
      scene: sceneOf({ ann: "pinger", bob: "ponger" }, { stepBudget: 10 }),
      profiles: { pinger: { subscribedEvents: ["game.pong"] }, ponger: { subscribedEvents: ["game.ping"] } },
      deliberate: async (id, trigger, ctx) => {
        deliberations.push(`${id} ${describeTrigger(trigger)}`);
        await ctx.services.world?.update("volleys", (n) => ((n as number | undefined) ?? 0) + 1);
        await ctx.services.events?.publish(id === "ann" ? "game.ping" : "game.pong", { from: id });
      },
    });
    runtime.start();
    runtime.sendMessage("ann", "serve");
    await runtime.whenIdle();

    expect(deliberations).toHaveLength(11);
    expect(deliberations.slice(0, 3)).toEqual(["ann user:serve", "bob game.ping<ann", "ann game.pong<bob"]);
    const status = runtime.status();
    expect(status.status).toBe("paused");
    expect(status.reason?.code).toBe("STEP_BUDGET_EXHAUSTED");
    expect(status.budget).toEqual({ limit: 10, used: 10 });
    expect(status.agents.find((a) => a.instanceId === "bob")?.waiting).toBe(1);
    const paused = events.find((e) => e.type === "scene.status" && e.status === "paused");
    expect(paused && paused.type === "scene.status" && paused.reason).toMatch(/Step budget used up.*ann → bob on game\.ping \(5×\), bob → ann on game\.pong \(5×\)/);
    expect(runtime.world.get("volleys")).toBe(11);

    // Nothing more runs on its own.
    await sleep(5);
    expect(deliberations).toHaveLength(11);

    // A user message grants a new budget: the waiting trigger runs first, then the message, then the storm again.
    runtime.sendMessage("ann", "again");
    await runtime.whenIdle();
    expect(deliberations).toHaveLength(22);
    expect(deliberations[11]).toBe("bob game.ping<ann");
    expect(runtime.status().status).toBe("paused");
  });

  it("bounds a fan-out storm too, however many agents wake each other", async () => {
    let count = 0;
    const { runtime } = setup({
      scene: sceneOf({ a: "chatty", b: "chatty", c: "chatty" }, { stepBudget: 25, mailbox: { capacity: 4, overflow: "drop-oldest" } }),
      profiles: { chatty: { subscribedEvents: ["chat.*"] } },
      deliberate: async (id, _trigger, ctx) => {
        count++;
        await ctx.services.events?.publish("chat.said", { by: id });
        await ctx.services.events?.publish("chat.echoed", { by: id });
      },
    });
    runtime.start();
    await runtime.bus.publish("chat.start", null);
    await runtime.whenIdle();
    // 3 from the system's event (free), then at most the budget of agent-caused ones.
    expect(count).toBe(3 + 25);
    expect(runtime.status().reason?.code).toBe("STEP_BUDGET_EXHAUSTED");
    expect(runtime.log.entries().some((e) => e.kind === "trigger.dropped")).toBe(true);
  });

  it("runs different agents at the same time but each agent one trigger at a time", async () => {
    const gate = deferred();
    const order: string[] = [];
    let annActive = 0;
    let annMax = 0;
    const { runtime } = setup({
      scene: sceneOf({ ann: "p", bob: "p" }),
      profiles: { p: {} },
      deliberate: async (id, trigger) => {
        order.push(`start ${id} ${describeTrigger(trigger)}`);
        if (id === "ann") annMax = Math.max(annMax, ++annActive);
        await gate.promise;
        if (id === "ann") annActive--;
        order.push(`end ${id}`);
      },
    });
    runtime.start();
    runtime.sendMessage("all", "one");
    runtime.sendMessage("ann", "two");
    runtime.sendMessage("ann", "three");
    await until(() => order.length === 2);
    expect(order).toEqual(["start ann user:one", "start bob user:one"]);
    expect(runtime.status().agents).toEqual([
      { instanceId: "ann", busy: true, waiting: 2 },
      { instanceId: "bob", busy: true, waiting: 0 },
    ]);
    gate.resolve();
    await runtime.whenIdle();
    expect(annMax).toBe(1);
    expect(order.filter((o) => o.startsWith("start ann"))).toEqual(["start ann user:one", "start ann user:two", "start ann user:three"]);
  });

  it("holds triggers while paused, delivers them on resume, and on stop aborts and refuses further changes", async () => {
    const aborted: string[] = [];
    const got: string[] = [];
    const { runtime, events } = setup({
      scene: sceneOf({ ann: "p" }),
      profiles: { p: {} },
      deliberate: (id, trigger, ctx) => {
        got.push(describeTrigger(trigger));
        if (trigger.kind === "user" && trigger.text === "hang") {
          return new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => (aborted.push(id), resolve())));
        }
        return Promise.resolve();
      },
    });
    runtime.sendMessage("ann", "before start");
    await runtime.whenIdle();
    expect(got).toEqual([]);
    runtime.start();
    await runtime.whenIdle();
    runtime.pause();
    runtime.sendMessage("ann", "while paused");
    await runtime.whenIdle();
    expect(got).toEqual(["user:before start"]);
    runtime.resume();
    runtime.sendMessage("ann", "hang");
    await until(() => got.length === 3);
    const services = runtime.servicesFor("ann");
    await runtime.stop();
    expect(aborted).toEqual(["ann"]);
    expect(got).toEqual(["user:before start", "user:while paused", "user:hang"]);
    await expect(services.world!.set("x", 1)).rejects.toMatchObject({ code: "SCENE_STOPPED" });
    await expect(services.events!.publish("a.b", 1)).rejects.toMatchObject({ code: "SCENE_STOPPED" });
    expect(() => runtime.sendMessage("ann", "late")).toThrow(expect.objectContaining({ code: "SCENE_STOPPED" }));
    expect(() => runtime.start()).toThrow(expect.objectContaining({ code: "INVALID_TRANSITION" }));
    expect(events.filter((e) => e.type === "scene.status").map((e) => e.type === "scene.status" && e.status)).toEqual(["running", "paused", "running", "stopped"]);
  });

  it("wakes agents on timers until the timer or the scene is paused or stopped", async () => {
    const ticks: string[] = [];
    const { runtime } = setup({
      scene: sceneOf({ ann: "p", bob: "p" }, { triggers: [{ kind: "timer", id: "clock", everyMs: 2, instanceIds: ["ann"], message: "time passes" }] }),
      profiles: { p: {} },
      deliberate: async (id, trigger) => {
        if (trigger.kind === "timer") ticks.push(`${id} ${trigger.message} #${trigger.tick}`);
      },
    });
    runtime.start();
    await until(() => ticks.length >= 2);
    expect(ticks[0]).toBe("ann time passes #1");
    expect(ticks.every((t) => t.startsWith("ann "))).toBe(true);

    runtime.pauseTimer("clock");
    await runtime.whenIdle();
    let seen = ticks.length;
    await sleep(10);
    expect(ticks.length).toBe(seen);
    runtime.resumeTimer("clock");
    await until(() => ticks.length > seen);

    runtime.pause();
    await runtime.whenIdle();
    seen = ticks.length;
    await sleep(10);
    expect(ticks.length).toBe(seen);
    runtime.resume();
    await until(() => ticks.length > seen);

    await runtime.stop();
    seen = ticks.length;
    await sleep(10);
    expect(ticks.length).toBe(seen);
    expect(() => runtime.pauseTimer("nope")).toThrow(expect.objectContaining({ code: "UNKNOWN_TIMER" }));
  });
});

describe("SceneRuntime records", () => {
  it("logs triggers, deliberations and state changes in order, and stamps events with the scene stream", async () => {
    const { runtime, events } = setup({
      scene: sceneOf({ ann: "p" }, { initialWorldState: { gold: 1 } }),
      profiles: { p: { subscribedEvents: [], initialPrivateState: { mood: "calm", plan: [] } } },
      deliberate: async (id, trigger, ctx) => {
        await ctx.services.world?.update("gold", (g) => (g as number) + 10);
        await ctx.services.privateState?.set("mood", "rich");
        if (trigger.kind === "user") runtime.recordLlmOutput(id, trigger.id, 0, "I found gold.");
        throw new Error("then it broke");
      },
    });
    runtime.start();
    runtime.sendMessage("ann", "dig");
    await runtime.whenIdle();
    expect(runtime.log.entries().map((e) => e.kind)).toEqual(["status", "trigger.queued", "deliberation.started", "world.changed", "private.changed", "llm.output", "deliberation.finished"]);
    const finished = runtime.log.entries().at(-1);
    expect(finished).toMatchObject({ kind: "deliberation.finished", instanceId: "ann", ok: false, error: "then it broke" });
    expect(runtime.log.entries().map((e) => e.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(runtime.privateState("ann").snapshot()).toEqual({ mood: "rich", plan: [] });
    expect(runtime.world.history()).toMatchObject([{ path: "gold", before: 1, after: 11, agentId: "ann" }]);
    const changed = events.find((e) => e.type === "world.changed");
    expect(changed).toMatchObject({ streamId: "s1", path: "gold", value: 11, agentId: "ann" });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
  });
});
