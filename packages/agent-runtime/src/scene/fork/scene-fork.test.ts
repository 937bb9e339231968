import { describe, expect, it } from "vitest";
import type { SceneInput } from "@weft/types";
import { FileSceneStateStore } from "../persistence/file-scene-state-store.ts";
import { SceneRuntime, type Deliberate } from "../runtime/scene-runtime.ts";
import { countingLlm, request, sceneFolders } from "../runtime/test-support.ts";
import { forkSceneRecord } from "./scene-fork.ts";

const scene: SceneInput = { id: "tally", name: "Tally", agents: [{ instanceId: "ann", profileId: "p" }], initialWorldState: { n: 0 } };
const forkScene: SceneInput = { ...scene, id: "tally--fork" };

/** Four steps, each a model answer then a world write and a private write; the world before each model call is noted. */
function fourSteps(llm: ReturnType<typeof countingLlm>, answers: string[], worlds: unknown[]): Deliberate {
  return async (_id, _trigger, ctx) => {
    const model = ctx.llm(llm);
    for (let step = 1; step <= 4; step++) {
      worlds.push(structuredClone(ctx.services.world!.snapshot()));
      answers.push((await model.chat(request)).text);
      await ctx.services.world!.update("n", (n) => (n as number) + 1);
      await ctx.services.privateState!.set("last", step);
    }
    await ctx.services.events!.publish("tally.done", null);
  };
}

const sceneFolder = sceneFolders("weft-scene-fork-");

describe("forking a scene agent's step", () => {
  it("at step 2 of 4: steps 1-2 from the record (no model call, no effect made twice), the world at the point as the original's, then live", async () => {
    const originalDir = await sceneFolder();
    const originalLlm = countingLlm("orig");
    const original = { answers: [] as string[], worlds: [] as unknown[] };
    const first = new SceneRuntime({
      scene,
      profileOf: () => ({}),
      deliberate: fourSteps(originalLlm, original.answers, original.worlds),
      store: new FileSceneStateStore(originalDir),
      persistEveryMs: 5,
    });
    first.start();
    const [trigger] = first.sendMessage("ann", "count");
    await first.whenIdle();
    await first.stop();
    expect(originalLlm.calls).toBe(4);
    const log = await new FileSceneStateStore(originalDir).readLog("tally");

    const forkDir = await sceneFolder();
    const base = new SceneRuntime({ scene: forkScene, profileOf: () => ({}), deliberate: async () => undefined }).serialize();
    const fork = forkSceneRecord(base, log, { instanceId: "ann", triggerId: trigger!.id, step: 2 }, { kind: "llmOutput", text: "EDITED" }, Date.now());
    expect(fork.replaced).toBe("orig 2");
    // The world and private state at the fork point are the original's just before step 2's model call.
    expect(fork.state.world.document).toEqual(original.worlds[1]);
    expect(fork.state.privateStates.ann).toEqual({ last: 1 });
    const store = new FileSceneStateStore(forkDir);
    await store.appendLog("tally--fork", fork.log);
    await store.saveState(fork.state);

    const liveLlm = countingLlm("live");
    const forked = { answers: [] as string[], worlds: [] as unknown[] };
    const second = new SceneRuntime({ scene: forkScene, profileOf: () => ({}), deliberate: fourSteps(liveLlm, forked.answers, forked.worlds), store, persistEveryMs: 5 });
    expect(await second.restoreFromStore()).toBe(true);
    await second.whenIdle();
    await second.persist();

    // Step 1 recorded, step 2 the edit: the model was asked for steps 3 and 4 only.
    expect(forked.answers).toEqual(["orig 1", "EDITED", "live 1", "live 2"]);
    expect(liveLlm.calls).toBe(2);
    expect(forked.worlds[1]).toEqual(original.worlds[1]);
    expect(second.world.snapshot()).toEqual({ n: 4 });
    // Step 1's write was not made again: the fork's log holds it once, then steps 2-4's.
    const forkLog = await store.readLog("tally--fork");
    expect(forkLog.filter((e) => e.kind === "world.changed").map((e) => e.kind === "world.changed" && e.change.after)).toEqual([1, 2, 3, 4]);
    expect(forkLog.filter((e) => e.kind === "llm.output").map((e) => e.kind === "llm.output" && e.text)).toEqual(["orig 1", "EDITED", "live 1", "live 2"]);
    expect(forkLog.map((e) => e.seq)).toEqual(forkLog.map((_, i) => i));
    await second.stop();
  });

  it("refuses a step the deliberation did not record, saying how many it did", async () => {
    const dir = await sceneFolder();
    const runtime = new SceneRuntime({ scene, profileOf: () => ({}), deliberate: fourSteps(countingLlm("x"), [], []), store: new FileSceneStateStore(dir), persistEveryMs: 5 });
    runtime.start();
    const [trigger] = runtime.sendMessage("ann", "count");
    await runtime.whenIdle();
    await runtime.stop();
    const log = await new FileSceneStateStore(dir).readLog("tally");
    const base = new SceneRuntime({ scene: forkScene, profileOf: () => ({}), deliberate: async () => undefined }).serialize();
    expect(() => forkSceneRecord(base, log, { instanceId: "ann", triggerId: trigger!.id, step: 9 }, { kind: "llmOutput", text: "x" }, 0)).toThrow(
      /No model output of step 9 is recorded; the deliberation of trigger "t1" by "ann" recorded 4 step\(s\)/,
    );
  });
});
