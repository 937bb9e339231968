import { describe, expect, it } from "vitest";
import type { SceneInput } from "@weft/types";
import { SceneRuntime } from "./scene-runtime.ts";

const scene: SceneInput = { id: "clocked", name: "Clocked", agents: [{ instanceId: "ann", profileId: "p" }], triggers: [{ kind: "timer", id: "tick", everyMs: 3_600_000 }] };

function runtimeAt(time: { now: number }): SceneRuntime {
  return new SceneRuntime({ scene, profileOf: () => ({ subscribedEvents: [] }), deliberate: async () => {}, clock: () => time.now });
}

describe("the scene's clock", () => {
  it("counts only the time the scene runs: not before its start, not while paused, and not after it stops", async () => {
    const time = { now: 1_000 };
    const runtime = runtimeAt(time);
    time.now += 50_000;
    expect(runtime.status().clock.runningMs).toBe(0);
    runtime.start();
    time.now += 10_000;
    expect(runtime.status().clock).toEqual({ runningMs: 10_000, at: time.now });
    await runtime.pause();
    time.now += 100_000;
    runtime.resume();
    time.now += 5_000;
    expect(runtime.status().clock.runningMs).toBe(15_000);
    await runtime.stop();
    time.now += 7_000;
    expect(runtime.status().clock.runningMs).toBe(15_000);
  });

  it("is saved with the state and goes on from there after a restore, the downtime not counted", () => {
    const time = { now: 0 };
    const first = runtimeAt(time);
    first.start();
    time.now += 42_000;
    const saved = first.serialize();
    expect(saved.runningMs).toBe(42_000);

    time.now += 600_000; // the server was down
    const second = runtimeAt(time);
    second.restore(saved);
    expect(second.status().status).toBe("running");
    expect(second.status().clock.runningMs).toBe(42_000);
    time.now += 8_000;
    expect(second.status().clock.runningMs).toBe(50_000);
  });

  it("restores a state saved before the clock existed as not having run", () => {
    const time = { now: 0 };
    const saved: Record<string, unknown> = { ...runtimeAt(time).serialize() };
    delete saved.runningMs;
    const runtime = runtimeAt(time);
    runtime.restore(saved);
    expect(runtime.status().clock.runningMs).toBe(0);
  });
});
