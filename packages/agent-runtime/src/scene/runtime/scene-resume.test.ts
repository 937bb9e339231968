import { describe, expect, it } from "vitest";
import type { LlmService, SceneInput } from "@weft/types";
import { FileSceneStateStore } from "../persistence/file-scene-state-store.ts";
import { SceneRuntime, type Deliberate } from "./scene-runtime.ts";
import { countingLlm, crashWhen, request, sceneFolders } from "./test-support.ts";

const scene: SceneInput = { id: "tally", name: "Tally", agents: [{ instanceId: "ann", profileId: "p" }], initialWorldState: { n: 0 } };

/** Two steps, each an answer then a world write; the second step waits for `gate` (where the crash happens). */
function twoSteps(llm: LlmService, gate: Promise<void>, answers: string[]): Deliberate {
  return async (_id, _trigger, ctx) => {
    const model = ctx.llm(llm);
    answers.push((await model.chat(request)).text);
    await ctx.services.world!.update("n", (n) => (n as number) + 1);
    await ctx.services.privateState!.set("seen", true);
    await gate;
    answers.push((await model.chat(request)).text);
    await ctx.services.world!.update("n", (n) => (n as number) + 1);
    await ctx.services.events!.publish("tally.done", null);
  };
}

const sceneFolder = sceneFolders("weft-scene-resume-");

describe("a deliberation cut off by a crash", () => {
  it("resumes from the committed log: recorded answers served again, committed effects not made twice", async () => {
    const dir = await sceneFolder();
    const first = countingLlm("before");
    const answers: string[] = [];
    let reachedGate = false;
    const never = new Promise<void>(() => undefined);
    const crashed = new SceneRuntime({
      scene,
      profileOf: () => ({}),
      deliberate: async (id, trigger, ctx) => {
        await twoSteps(
          first,
          never.finally(() => undefined),
          answers,
        )(id, trigger, {
          ...ctx,
          services: {
            ...ctx.services,
            privateState: {
              ...ctx.services.privateState!,
              set: async (path, value) => {
                await ctx.services.privateState!.set(path, value);
                reachedGate = true;
              },
            },
          },
        });
      },
      store: new FileSceneStateStore(dir),
      persistEveryMs: 5,
    });
    // What a kill -9 leaves: the last commit (the answer, the write and the private write of step 1).
    await crashWhen(crashed, "ann", "count", () => reachedGate);

    const second = countingLlm("after");
    const resumedAnswers: string[] = [];
    const restarted = new SceneRuntime({ scene, profileOf: () => ({}), deliberate: twoSteps(second, Promise.resolve(), resumedAnswers), store: new FileSceneStateStore(dir), persistEveryMs: 5 });
    expect(await restarted.restoreFromStore()).toBe(true);
    await restarted.whenIdle();
    await restarted.persist();

    // Step 1's answer came from the record; only step 2 asked the model.
    expect(answers).toEqual(["before 1"]);
    expect(resumedAnswers).toEqual(["before 1", "after 1"]);
    expect(second.calls).toBe(1);
    // Step 1's write is in the restored state and was not made again.
    expect(restarted.world.snapshot()).toEqual({ n: 2 });
    const log = await new FileSceneStateStore(dir).readLog("tally");
    expect(log.filter((e) => e.kind === "world.changed").map((e) => e.kind === "world.changed" && e.change.after)).toEqual([1, 2]);
    expect(log.filter((e) => e.kind === "private.changed")).toHaveLength(1);
    expect(log.filter((e) => e.kind === "llm.output").map((e) => e.kind === "llm.output" && e.text)).toEqual(["before 1", "after 1"]);
    expect(log.filter((e) => e.kind === "event")).toHaveLength(1);
    await restarted.stop();
  });
});
