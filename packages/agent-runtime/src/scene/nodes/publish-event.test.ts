import { describe, expect, it } from "vitest";
import type { AgentTrigger } from "@weft/types";
import { expectFailure, runNode } from "../../../../nodes/src/testing/harness.ts";
import { testScene } from "../testing/test-scene.ts";
import { publishEvent } from "../../../../nodes/src/scene/publish-event.ts";

function scene() {
  const woken: string[] = [];
  const runtime = testScene(
    { ann: "p", bob: "listener" },
    {
      profileOf: (_id, agent) => (agent.profileId === "listener" ? { subscribedEvents: ["task.*"] } : {}),
      deliberate: async (id, t: AgentTrigger) => {
        if (t.kind === "event") woken.push(`${id} got ${t.topic} ${JSON.stringify(t.payload)} from ${t.source}`);
      },
    },
  );
  runtime.start();
  return { runtime, woken };
}

describe("scene:publish-event", () => {
  it("wakes the subscribed agents with the payload, as coming from the caller", async () => {
    const { runtime, woken } = scene();
    expect(await runNode(publishEvent, { topic: "task.created", payload: { id: 7 } }, {}, { services: runtime.servicesFor("ann") })).toEqual({ topic: "task.created" });
    expect(await runNode(publishEvent, { topic: "chat.said" }, {}, { services: runtime.servicesFor("ann") })).toEqual({ topic: "chat.said" });
    await runtime.whenIdle();
    expect(woken).toEqual(['bob got task.created {"id":7} from ann']);
  });

  it("refuses a topic that is not namespace.name", async () => {
    const { runtime } = scene();
    const err = await expectFailure(runNode(publishEvent, { topic: "created" }, {}, { services: runtime.servicesFor("ann") }), "INVALID_TOPIC");
    expect(err.message).toContain("namespace.name");
    await expectFailure(runNode(publishEvent, { topic: "task.*" }, {}, { services: runtime.servicesFor("ann") }), "INVALID_TOPIC");
    expect(runtime.bus.lastSeq).toBe(0);
  });

  it("names the missing service outside a scene", async () => {
    const err = await expectFailure(runNode(publishEvent, { topic: "a.b" }), "MISSING_SERVICE");
    expect(err.message).toContain("ctx.services.events");
  });
});
