import { describe, expect, it } from "vitest";
import type { AgentTrigger, SceneInput, SceneLogEntry } from "@weft/types";
import { SceneRuntime, type Deliberate } from "../runtime/scene-runtime.ts";
import { recordedTriggerScript } from "./trigger-script.ts";

const event = (id: string, n: number, coalesced = 0): AgentTrigger => ({ id, at: 1, coalesced, kind: "event", topic: "town.said", payload: { n }, source: "bob", eventSeq: n });
const user = (id: string): AgentTrigger => ({ id, at: 1, coalesced: 0, kind: "user", to: "all", text: "hi" });
const scene = (agents: string[]): SceneInput => ({
  id: "town",
  name: "Town",
  agents: agents.map((instanceId) => ({ instanceId, profileId: "p" })),
  mailbox: { capacity: 1, overflow: "coalesce" },
});

describe("recordedTriggerScript", () => {
  it("lists the triggers each agent started, a merged one as it started and a resumed one once", () => {
    let seq = 0;
    const e = (entry: Record<string, unknown>) => ({ seq: seq++, ts: 1, ...entry }) as SceneLogEntry;
    const log = [
      e({ kind: "trigger.queued", instanceId: "ann", trigger: user("t1") }),
      e({ kind: "deliberation.started", instanceId: "ann", triggerId: "t1", budgetUsed: 0 }),
      e({ kind: "trigger.queued", instanceId: "ann", trigger: event("t2", 1) }),
      e({ kind: "deliberation.finished", instanceId: "ann", triggerId: "t1", ok: true }),
      e({ kind: "trigger.coalesced", instanceId: "ann", trigger: event("t4", 3, 2), replacedId: "t2" }),
      e({ kind: "deliberation.started", instanceId: "ann", triggerId: "t4", budgetUsed: 1 }),
      e({ kind: "trigger.queued", instanceId: "cy", trigger: event("t5", 4) }),
      e({ kind: "trigger.dropped", instanceId: "cy", trigger: event("t5", 4), policy: "drop-oldest" }),
      e({ kind: "status", status: "running", reason: { code: "RESTORED", message: "restored" } }),
      e({ kind: "deliberation.started", instanceId: "ann", triggerId: "t4", budgetUsed: 1 }),
    ];
    const script = recordedTriggerScript(log);
    expect(Object.fromEntries(script)).toEqual({ ann: [user("t1"), event("t4", 3, 2)] });
  });

  it("makes a replay runtime deliberate exactly the script, whatever is published meanwhile, without charging the budget", async () => {
    const got: string[] = [];
    const deliberate: Deliberate = async (id, trigger, context) => {
      got.push(`${id}:${trigger.id}:${trigger.coalesced}`);
      // Would wake every other agent and coalesce in a live scene; the script decides instead.
      await context.services.events?.publish("town.said", { from: id });
    };
    const runtime = new SceneRuntime({ scene: { ...scene(["ann", "bob"]), stepBudget: 1 }, profileOf: () => ({ subscribedEvents: ["town.*"] }), deliberate });
    runtime.followScript(
      new Map([
        ["ann", [user("t1"), event("t9", 5, 3)]],
        ["bob", [user("t2")]],
      ]),
    );
    runtime.start();
    await runtime.whenIdle();
    expect(got.sort()).toEqual(["ann:t1:0", "ann:t9:3", "bob:t2:0"]);
    expect(runtime.status()).toMatchObject({ status: "running", budget: { used: 0 } });
    expect(() => runtime.followScript(new Map())).toThrow(expect.objectContaining({ code: "INVALID_TRANSITION" }));
    await runtime.stop();
  });
});
