import { describe, expect, it } from "vitest";
import type { RunEvent } from "@weft/types";
import { expectFailure, runNode } from "../../../../nodes/src/testing/harness.ts";
import { testScene } from "../testing/test-scene.ts";
import { worldSet } from "../../../../nodes/src/scene/world-set.ts";

function scene() {
  const events: RunEvent[] = [];
  const runtime = testScene({ ann: "p" }, { initialWorldState: { score: 3 }, onEvent: (e) => events.push(e) });
  return { runtime, events, services: runtime.servicesFor("ann") };
}

describe("scene:world-set", () => {
  it("stores a JSON value at a path as the calling agent, creating what is missing", async () => {
    const { runtime, events, services } = scene();
    expect(await runNode(worldSet, { path: "players[0]", value: { name: "Ann" } }, {}, { services })).toEqual({ value: { name: "Ann" } });
    expect(await runNode(worldSet, { path: "winner", value: null }, {}, { services })).toEqual({ value: null });
    expect(runtime.world.snapshot()).toEqual({ score: 3, players: [{ name: "Ann" }], winner: null });
    expect(events.filter((e) => e.type === "world.changed")).toMatchObject([
      { path: "players[0]", value: { name: "Ann" }, agentId: "ann" },
      { path: "winner", value: null, agentId: "ann" },
    ]);
  });

  it("stores JSON text as the value it stands for (an <ACTION> gives text), other text as it is", async () => {
    const { runtime, services } = scene();
    for (const [path, value] of [
      ["n", "6"],
      ["ok", "true"],
      ["none", "null"],
      ["quoted", '"6"'],
      ["word", "sunny"],
      ["list", "[1, 2]"],
    ]) {
      await runNode(worldSet, { path, value }, {}, { services });
    }
    expect(runtime.world.snapshot()).toEqual({ score: 3, n: 6, ok: true, none: null, quoted: "6", word: "sunny", list: [1, 2] });
  });

  it("refuses a path that runs through a non-object, saying where", async () => {
    const { runtime, services } = scene();
    const err = await expectFailure(runNode(worldSet, { path: "score.best", value: 1 }, {}, { services }), "PATH_CONFLICT");
    expect(err.message).toContain("score holds a number, not an object");
    expect(err.details).toEqual({ path: "score.best" });
    expect(runtime.world.snapshot()).toEqual({ score: 3 });
  });

  it("requires a path and names the missing service outside a scene", async () => {
    await expectFailure(runNode(worldSet, { value: 1 }, {}, { services: scene().services }), "INVALID_INPUT");
    const err = await expectFailure(runNode(worldSet, { path: "a", value: 1 }), "MISSING_SERVICE");
    expect(err.message).toContain("scene:world-set needs the scene's shared world state");
  });
});
