import { describe, expect, it } from "vitest";
import { PrivateState } from "./private-state.ts";
import type { JsonStateChange } from "./json-state.ts";

describe("PrivateState", () => {
  it("uses the world's path semantics and reports each change as the agent's", async () => {
    const changes: JsonStateChange[] = [];
    const state = new PrivateState("ann", { plan: { steps: ["scout"] } }, (c) => changes.push(c));
    await state.set("plan.steps[1]", "attack");
    expect(await state.update("mood", (m) => (m === undefined ? "calm" : m))).toBe("calm");
    expect(await state.delete("plan.steps[0]")).toBe(true);
    expect(state.snapshot()).toEqual({ plan: { steps: ["attack"] }, mood: "calm" });
    expect(changes).toEqual([
      { op: "set", path: "plan.steps[1]", after: "attack", agentId: "ann" },
      { op: "set", path: "mood", after: "calm", agentId: "ann" },
      { op: "delete", path: "plan.steps[0]", before: "scout", agentId: "ann" },
    ]);
  });

  it("refuses what the world refuses", async () => {
    const state = new PrivateState("ann");
    await expect(state.set("a[x]", 1)).rejects.toMatchObject({ code: "INVALID_PATH" });
    await expect(state.set("f", () => 0)).rejects.toMatchObject({ code: "NOT_JSON" });
    expect(() => new PrivateState("bob", [1, 2])).toThrow(/must be an object/);
  });

  it("serialises concurrent updates", async () => {
    const state = new PrivateState("ann", { n: 0 });
    await Promise.all(
      Array.from({ length: 50 }, () =>
        state.update("n", async (n) => {
          await Promise.resolve();
          return (n as number) + 1;
        }),
      ),
    );
    expect(state.get("n")).toBe(50);
  });
});
