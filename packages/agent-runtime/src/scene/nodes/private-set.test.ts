import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../../../../nodes/src/testing/harness.ts";
import { testScene } from "../testing/test-scene.ts";
import { privateSet } from "../../../../nodes/src/scene/private-set.ts";

const runtime = () => testScene({ ann: "p", bob: "p" });

describe("scene:private-set", () => {
  it("writes the calling agent's own state, which the scene log records", async () => {
    const r = runtime();
    expect(await runNode(privateSet, { path: "plan.steps[0]", value: "scout" }, {}, { services: r.servicesFor("ann") })).toEqual({ value: "scout" });
    expect(r.privateState("ann").snapshot()).toEqual({ plan: { steps: ["scout"] } });
    expect(r.privateState("bob").snapshot()).toEqual({});
    expect(await runNode(privateSet, { path: "hp", value: "6" }, {}, { services: r.servicesFor("bob") })).toEqual({ value: 6 });
    expect(r.privateState("bob").snapshot()).toEqual({ hp: 6 });
    expect(r.log.entries()).toMatchObject([
      { kind: "private.changed", instanceId: "ann", op: "set", path: "plan.steps[0]", after: "scout" },
      { kind: "private.changed", instanceId: "bob", op: "set", path: "hp", after: 6 },
    ]);
  });

  it("refuses a non-JSON value and names the missing service outside a scene", async () => {
    const r = runtime();
    const err = await expectFailure(runNode(privateSet, { path: "n", value: { big: 1n } }, {}, { services: r.servicesFor("ann") }), "NOT_JSON");
    expect(err.message).toContain("bigint");
    expect(r.privateState("ann").snapshot()).toEqual({});
    await expectFailure(runNode(privateSet, { path: "a", value: 1 }), "MISSING_SERVICE");
  });
});
