import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../../../../nodes/src/testing/harness.ts";
import { testScene } from "../testing/test-scene.ts";
import { privateGet } from "../../../../nodes/src/scene/private-get.ts";

const runtime = () => testScene({ ann: "spy", bob: "p" }, { profileOf: (_id, agent) => (agent.profileId === "spy" ? { initialPrivateState: { secret: { code: 42 } } } : {}) });

describe("scene:private-get", () => {
  it("reads the calling agent's own state only", async () => {
    const r = runtime();
    expect(await runNode(privateGet, { path: "secret.code" }, {}, { services: r.servicesFor("ann") })).toEqual({ value: 42, found: true });
    expect(await runNode(privateGet, { path: "secret.code", default: "none" }, {}, { services: r.servicesFor("bob") })).toEqual({ value: "none", found: false });
    expect(await runNode(privateGet, {}, {}, { services: r.servicesFor("ann") })).toEqual({ value: { secret: { code: 42 } }, found: true });
  });

  it("passes a path error on and names the missing service outside a scene", async () => {
    await expectFailure(runNode(privateGet, { path: "secret[" }, {}, { services: runtime().servicesFor("ann") }), "INVALID_PATH");
    const err = await expectFailure(runNode(privateGet, { path: "a" }), "MISSING_SERVICE");
    expect(err.message).toContain("ctx.services.privateState");
  });
});
