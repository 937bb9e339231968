import { describe, expect, it } from "vitest";
import type { AgentTrigger } from "@weft/types";
import { SceneRuntime } from "./scene-runtime.ts";

describe("SceneRuntime coalescing", () => {
  it("counts merges instead of logging each: one trigger.coalesced entry when the merged trigger runs", async () => {
    let release!: () => void;
    const busy = new Promise<void>((r) => (release = r));
    const got: AgentTrigger[] = [];
    const runtime = new SceneRuntime({
      scene: { id: "s1", name: "Town", agents: [{ instanceId: "bob", profileId: "p" }], mailbox: { capacity: 1, overflow: "coalesce" } },
      profileOf: () => ({ subscribedEvents: ["town.*"] }),
      deliberate: async (_id, trigger) => {
        got.push(trigger);
        if (trigger.kind === "user") await busy;
      },
    });
    runtime.start();
    runtime.sendMessage("bob", "Wait here.");
    for (let i = 0; i < 5; i++) await runtime.bus.publish("town.said", { i });
    expect(runtime.queueOf("bob").waiting).toHaveLength(1);
    release();
    await runtime.whenIdle();

    const entries = runtime.log.entries();
    const queued = entries.filter((e) => e.kind === "trigger.queued" && e.trigger.kind === "event");
    const merged = entries.filter((e) => e.kind === "trigger.coalesced");
    expect(queued).toHaveLength(1);
    expect(merged).toHaveLength(1);
    expect(merged[0]).toMatchObject({ instanceId: "bob", replacedId: queued[0]?.kind === "trigger.queued" ? queued[0].trigger.id : "", trigger: { coalesced: 4, payload: { i: 4 } } });
    // Logged right before the deliberation it starts.
    const at = entries.indexOf(merged[0]!);
    expect(entries[at + 1]).toMatchObject({ kind: "deliberation.started", triggerId: got[1]?.id });
    expect(got.map((t) => t.coalesced)).toEqual([0, 4]);
    expect(runtime.serialize().mailboxes.bob?.coalesced).toBe(4);
    await runtime.stop();
  });
});
