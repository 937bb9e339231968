import { describe, expect, it } from "vitest";
import { SceneRuntimeStateSchema, type SceneInput, type SceneRuntimeState } from "@weft/types";
import { FileSceneStateStore } from "../persistence/file-scene-state-store.ts";
import type { SceneStateStore } from "../persistence/scene-state-store.ts";
import { SceneRuntime, type Deliberate } from "./scene-runtime.ts";
import { sceneFolders } from "./test-support.ts";

/**
 * Two agents count to 12 together: each deliberation adds the event's number to the world total,
 * notes it privately and passes n + 1 to the other agent. A clock timer is declared (paused) so
 * its state travels with the scene too.
 */
const scene: SceneInput = {
  id: "relay",
  name: "Relay",
  agents: [
    { instanceId: "ann", profileId: "runner" },
    { instanceId: "bob", profileId: "runner" },
  ],
  initialWorldState: { total: 0, trail: [] },
  triggers: [{ kind: "timer", id: "clock", everyMs: 1000 }],
  stepBudget: 100,
};
const LAST = 12;

type OnStep = (n: number, runtime: SceneRuntime) => "skip" | void | Promise<"skip" | void>;

function relay(onStep?: OnStep): { deliberate: Deliberate; bind: (r: SceneRuntime) => void } {
  let runtime: SceneRuntime | undefined;
  const deliberate: Deliberate = async (id, trigger, ctx) => {
    if (trigger.kind !== "event") return;
    const n = (trigger.payload as { n: number }).n;
    if ((await onStep?.(n, runtime!)) === "skip") return;
    await ctx.services.world!.update("total", (t) => (t as number) + n);
    await ctx.services.world!.update("trail", (t) => [...(t as string[]), `${id}:${n}`]);
    await ctx.services.privateState!.update("seen", (s) => ((s as number | undefined) ?? 0) + 1);
    if (n < LAST) await ctx.services.events!.publish("relay.next", { n: n + 1 });
  };
  return { deliberate, bind: (r) => (runtime = r) };
}

function create(deliberate: Deliberate, store?: SceneStateStore): SceneRuntime {
  return new SceneRuntime({ scene, profileOf: () => ({ subscribedEvents: ["relay.*"] }), deliberate, store });
}

async function runUninterrupted() {
  const { deliberate } = relay();
  const runtime = create(deliberate);
  runtime.pauseTimer("clock");
  runtime.start();
  await runtime.bus.publish("relay.next", { n: 1 }, "ann");
  await runtime.whenIdle();
  return { world: runtime.world.snapshot(), ann: runtime.privateState("ann").snapshot(), bob: runtime.privateState("bob").snapshot() };
}

const sceneFolder = sceneFolders("weft-scene-");

describe("SceneRuntime serialize / restore", () => {
  it("continues a scene saved in the middle of a deliberation to the same end state", async () => {
    const expected = await runUninterrupted();
    expect(expected.world.total).toBe(((1 + LAST) * LAST) / 2);

    let saved: SceneRuntimeState | undefined;
    const first = relay(async (n, runtime) => {
      if (n !== 7) return;
      // Let the agent that published n = 7 return first (its run ends on the next microtasks).
      await new Promise((r) => setTimeout(r, 0));
      // Save while this trigger is in flight, then "crash": stop before it changes anything.
      saved = JSON.parse(JSON.stringify(runtime.serialize()));
      void runtime.stop();
      return "skip";
    });
    const crashed = create(first.deliberate);
    first.bind(crashed);
    crashed.pauseTimer("clock");
    crashed.start();
    await crashed.bus.publish("relay.next", { n: 1 }, "ann");
    await crashed.whenIdle();
    expect(crashed.world.get("total")).toBe(21);

    const state = SceneRuntimeStateSchema.parse(saved);
    expect(state.status).toBe("running");
    expect(state.mailboxes.bob.inFlight).toMatchObject({ kind: "event", payload: { n: 7 } });
    expect(state.mailboxes.ann.inFlight).toBeNull();
    expect(state.timers).toEqual([{ id: "clock", ticks: 0, paused: true }]);

    const delivered: string[] = [];
    const second = relay();
    const resumed = create(async (id, trigger, ctx) => {
      if (trigger.kind === "event") delivered.push(`${id}:${(trigger.payload as { n: number }).n}${trigger.resumed ? " (resumed)" : ""}`);
      await second.deliberate(id, trigger, ctx);
    });
    resumed.restore(state);
    await resumed.whenIdle();
    expect(resumed.status().status).toBe("running");
    expect({ world: resumed.world.snapshot(), ann: resumed.privateState("ann").snapshot(), bob: resumed.privateState("bob").snapshot() }).toEqual(expected);
    // Numbering continues: no event or log number is reused.
    expect(resumed.log.entries()[0].seq).toBe(state.counters.log);
    expect(resumed.bus.lastSeq).toBe(LAST);
    expect(delivered).toEqual(["bob:7 (resumed)", "ann:8", "bob:9", "ann:10", "bob:11", "ann:12"]);
    await resumed.stop();
  });

  it("survives a restart through a FileSceneStateStore and keeps one gap-free log", async () => {
    const dir = await sceneFolder();
    const expected = await runUninterrupted();

    const first = relay((n, runtime) => {
      if (n === 5) runtime.pause();
    });
    const before = create(first.deliberate, new FileSceneStateStore(dir));
    first.bind(before);
    before.pauseTimer("clock");
    before.start();
    await before.bus.publish("relay.next", { n: 1 }, "ann");
    await before.whenIdle();
    await before.persist();
    expect(before.status().status).toBe("paused");
    expect(before.world.get("total")).toBe(15);

    // A new process: a fresh runtime and store over the same folder.
    const store = new FileSceneStateStore(dir);
    const after = create(relay().deliberate, store);
    expect(await after.restoreFromStore()).toBe(true);
    expect(after.status().status).toBe("paused");
    expect(after.world.get("total")).toBe(15);
    after.resume();
    await after.whenIdle();
    await after.stop();
    expect({ world: after.world.snapshot(), ann: after.privateState("ann").snapshot(), bob: after.privateState("bob").snapshot() }).toEqual(expected);

    const log = await store.readLog("relay");
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i));
    const changes = log.filter((e) => e.kind === "world.changed");
    expect(changes).toHaveLength(2 * LAST);
    expect(log.filter((e) => e.kind === "status").map((e) => e.kind === "status" && e.status)).toEqual(["running", "paused", "paused", "running", "stopped"]);
    expect((await store.loadState("relay"))?.status).toBe("stopped");
    expect(await new FileSceneStateStore(dir).loadState("other")).toBeUndefined();
  });

  it("refuses a state that does not fit the scene, changing nothing", async () => {
    const source = create(relay().deliberate);
    const good = source.serialize();
    const target = () => create(relay().deliberate);

    const wrongScene = target();
    expect(() => wrongScene.restore({ ...good, sceneId: "other" })).toThrow(expect.objectContaining({ code: "INVALID_STATE", message: expect.stringContaining('scene "other"') }));
    const lost = target();
    const withGhost = { ...good, privateStates: { ...good.privateStates, ghost: { x: 1 } } };
    expect(() => lost.restore(withGhost)).toThrow(/no longer defines: ghost/);
    expect(lost.privateState("ann").snapshot()).toEqual({});
    const broken = target();
    expect(() => broken.restore({ ...good, budget: { limit: 0, used: -1 } })).toThrow(expect.objectContaining({ code: "INVALID_STATE", message: expect.stringContaining("budget") }));

    const started = target();
    started.start();
    expect(() => started.restore(good)).toThrow(expect.objectContaining({ code: "INVALID_TRANSITION" }));
    await started.stop();
  });
});
