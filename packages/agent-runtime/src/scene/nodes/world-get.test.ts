import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../../../../nodes/src/testing/harness.ts";
import { testScene } from "../testing/test-scene.ts";
import { worldGet } from "../../../../nodes/src/scene/world-get.ts";

const services = () => testScene({ ann: "p" }, { initialWorldState: { team: { name: "red", members: ["ann", "bob"] } } }).servicesFor("ann");

describe("scene:world-get", () => {
  it("reads a path of the shared world state, with found and a default", async () => {
    const s = services();
    expect(await runNode(worldGet, { path: "team.members[1]" }, {}, { services: s })).toEqual({ value: "bob", found: true });
    expect(await runNode(worldGet, { path: "team.size", default: 0 }, {}, { services: s })).toEqual({ value: 0, found: false });
    expect(await runNode(worldGet, { path: "team.size" }, {}, { services: s })).toEqual({ value: null, found: false });
    expect(await runNode(worldGet, {}, {}, { services: s })).toEqual({ value: { team: { name: "red", members: ["ann", "bob"] } }, found: true });
  });

  it("passes a path error on with its code", async () => {
    const err = await expectFailure(runNode(worldGet, { path: "team[name]" }, {}, { services: services() }), "INVALID_PATH");
    expect(err.message).toContain('"name" is not an array index');
  });

  it("names the missing service outside a scene", async () => {
    const err = await expectFailure(runNode(worldGet, { path: "a" }), "MISSING_SERVICE");
    expect(err.message).toContain("ctx.services.world");
    expect(err.details).toEqual({ service: "world" });
  });
});
