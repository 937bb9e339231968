import { describe, expect, it } from "vitest";
import type { LlmService, SceneInput } from "@weft/types";
import { FileSceneStateStore } from "../persistence/file-scene-state-store.ts";
import { SceneRuntime, type Deliberate, type DeliberationContext } from "./scene-runtime.ts";
import { countingLlm, crashWhen, request, sceneFolders } from "./test-support.ts";

const scene: SceneInput = { id: "ledger", name: "Ledger", agents: [{ instanceId: "ann", profileId: "p" }], initialWorldState: { n: 0 } };

/** A tool call as an agent's step makes it: outside the scene (a line in `file`) and in the world; its recorded outcome is used when there is one. */
async function appendLine(ctx: DeliberationContext, file: string[], line: string): Promise<string> {
  const journal = ctx.actions.begin({ toolId: "fs:write", params: { path: "@project/ledger.txt", content: line } });
  if (journal.recorded) return journal.recorded.observation;
  const startedAt = Date.now();
  file.push(line);
  await ctx.services.world!.update("n", (n) => (n as number) + 1);
  const observation = `wrote ${line} (${file.length} lines)`;
  journal.completed({ status: "completed", ok: true, observation, startedAt, durationMs: 0 });
  return observation;
}

/**
 * Two steps, each a model answer then a call; after step 1's call a private write, then `gate`
 * (where the crash happens). `skip` steps are not run (the conversation holds them).
 */
function twoSteps(llm: LlmService, gate: () => Promise<void>, file: string[], seen: string[], skip = 0): Deliberate {
  return async (_id, _trigger, ctx) => {
    if (skip > 0) ctx.resumeAfter(skip);
    const model = ctx.llm(llm);
    if (skip < 1) {
      seen.push((await model.chat(request)).text, await appendLine(ctx, file, "one"));
      await ctx.services.privateState!.set("seen", true);
    }
    await gate();
    seen.push((await model.chat(request)).text, await appendLine(ctx, file, "two"));
  };
}

const sceneFolder = sceneFolders("weft-scene-actions-");

/** Runs step 1 and its call, commits, and leaves the runtime hanging at the gate (what a kill -9 leaves). */
async function crashAfterStepOne(dir: string, file: string[]): Promise<string[]> {
  const seen: string[] = [];
  let reached = false;
  const crashed = new SceneRuntime({
    scene,
    profileOf: () => ({}),
    deliberate: twoSteps(
      countingLlm("before"),
      () => {
        reached = true;
        return new Promise<void>(() => undefined);
      },
      file,
      seen,
    ),
    store: new FileSceneStateStore(dir),
    persistEveryMs: 5,
  });
  await crashWhen(crashed, "ann", "write", () => reached);
  return seen;
}

describe("a tool call committed before a crash", () => {
  it.each([
    { how: "re-run from the trigger (the conversation lost the step)", skip: 0, seen: ["before 1", "wrote one (1 lines)", "after 1", "wrote two (2 lines)"] },
    { how: "continued after the step the conversation holds", skip: 1, seen: ["after 1", "wrote two (2 lines)"] },
  ])("is not run again when the deliberation is $how", async ({ skip, seen: expected }) => {
    const dir = await sceneFolder();
    const file: string[] = [];
    expect(await crashAfterStepOne(dir, file)).toEqual(["before 1", "wrote one (1 lines)"]);

    const second = countingLlm("after");
    const seen: string[] = [];
    const restarted = new SceneRuntime({
      scene,
      profileOf: () => ({}),
      deliberate: twoSteps(second, () => Promise.resolve(), file, seen, skip),
      store: new FileSceneStateStore(dir),
      persistEveryMs: 5,
    });
    expect(await restarted.restoreFromStore()).toBe(true);
    await restarted.whenIdle();
    await restarted.persist();

    // The call of step 1 ran once; its recorded observation was used again; only step 2 asked the model.
    expect(file).toEqual(["one", "two"]);
    expect(seen).toEqual(expected);
    expect(second.calls).toBe(1);
    // Its world write and the private write after it were not made again either.
    expect(restarted.world.snapshot()).toEqual({ n: 2 });
    const log = await new FileSceneStateStore(dir).readLog("ledger");
    expect(log.filter((e) => e.kind === "world.changed").map((e) => e.kind === "world.changed" && e.change.after)).toEqual([1, 2]);
    expect(log.filter((e) => e.kind === "private.changed")).toHaveLength(1);
    expect(log.filter((e) => e.kind === "action.completed").map((e) => e.kind === "action.completed" && [e.step, e.index, e.params])).toEqual([
      [1, 0, { path: "@project/ledger.txt", content: "one" }],
      [2, 0, { path: "@project/ledger.txt", content: "two" }],
    ]);
    expect(log.filter((e) => e.kind === "deliberation.finished").map((e) => e.kind === "deliberation.finished" && e.ok)).toEqual([true]);
    await restarted.stop();
  });

  it("runs when the resumed step makes another call than the recorded one", async () => {
    const dir = await sceneFolder();
    const file: string[] = [];
    await crashAfterStepOne(dir, file);
    const deliberate: Deliberate = async (_id, _trigger, ctx) => {
      await ctx.llm(countingLlm("after")).chat(request);
      await appendLine(ctx, file, "other");
    };
    const restarted = new SceneRuntime({ scene, profileOf: () => ({}), deliberate, store: new FileSceneStateStore(dir), persistEveryMs: 5 });
    await restarted.restoreFromStore();
    await restarted.whenIdle();
    expect(file).toEqual(["one", "other"]);
    await restarted.stop();
  });
});
