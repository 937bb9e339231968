import { describe, expect, it } from "vitest";
import type { SceneInput } from "@weft/types";
import { SceneRuntime, type Deliberate } from "./scene-runtime.ts";

const scene: SceneInput = {
  id: "s1",
  name: "Pair",
  agents: [
    { instanceId: "ann", profileId: "p" },
    { instanceId: "bob", profileId: "p" },
  ],
  stepBudget: 5,
};
const create = (deliberate: Deliberate) => new SceneRuntime({ scene, profileOf: (id) => ({ subscribedEvents: id === "bob" ? ["ping.*"] : [] }), deliberate });

describe("SceneRuntime restore and the step budget", () => {
  it("does not charge a trigger delivered again after a restore a second step", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const first = create(async (id) => {
      if (id === "bob") await held;
    });
    first.start();
    await first.bus.publish("ping.sent", null, "ann");
    expect(first.status().budget.used).toBe(1);
    const saved = first.serialize();
    expect(saved.mailboxes.bob?.inFlight).not.toBeNull();
    release();
    await first.stop();

    const woken: string[] = [];
    const second = create(async (id, trigger) => {
      woken.push(`${id} ${trigger.resumed ? "resumed" : "new"}`);
    });
    second.restore(saved);
    await second.whenIdle();
    expect(woken).toEqual(["bob resumed"]);
    expect(second.status().budget.used).toBe(1);
    await second.stop();
  });
});
