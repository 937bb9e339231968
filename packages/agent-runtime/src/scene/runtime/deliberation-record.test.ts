import { describe, expect, it } from "vitest";
import { NumberedStore } from "../../conversation/testing/numbered-store.ts";
import { conversationHistory } from "../../conversation/conversation-history.ts";
import { userMessage } from "../../conversation/messages.ts";
import { DeliberationRecord, type DeliberationSinks } from "./deliberation-record.ts";

const sinks: DeliberationSinks = { output: () => undefined, action: () => undefined, commit: (work) => work(), warn: () => undefined };
const say = (text: string) => userMessage(text, { mode: "agent" });

describe("a deliberation's conversation store", () => {
  it("keeps the incremental reads of a numbered store across deliberations (each wraps the store anew)", async () => {
    const store = new NumberedStore();
    await store.create({ id: "c" });
    await store.append("c", [say("one"), say("two")]);
    expect((await conversationHistory(new DeliberationRecord(undefined, sinks).conversations(store), "c")).length).toBe(2);
    const before = store.handedOut;

    const next = new DeliberationRecord(undefined, sinks).conversations(store);
    await next.append("c", [say("three")]);
    expect((await conversationHistory(next, "c")).map((m) => m.content)).toEqual(["one", "two", "three"]);
    expect(store.handedOut - before).toBe(1);
  });
});

describe("a deliberation's session store", () => {
  it("saves with the scene's next commit without waiting for it, and a failed save is a warning", async () => {
    const saved: number[] = [];
    const commits: Array<() => Promise<void>> = [];
    const warnings: string[] = [];
    const record = new DeliberationRecord(undefined, {
      ...sinks,
      commit: (work) => new Promise<void>((resolve, reject) => commits.push(() => work().then(resolve, reject))),
      warn: (message) => void warnings.push(message),
    });
    const sessions = record.sessions({ load: async () => undefined, save: async (state) => void saved.push(state.steps) });
    const state = { agentId: "a", conversationId: "c", status: "running" as const, steps: 3, nextEventSeq: 0, privateState: {}, updatedAt: 1 };
    await sessions.save(state);
    expect(saved).toEqual([]);
    await commits[0]!();
    expect(saved).toEqual([3]);

    const failing = new DeliberationRecord(undefined, { ...sinks, warn: (message) => void warnings.push(message) }).sessions({
      load: async () => undefined,
      save: async () => {
        throw new Error("disk full");
      },
    });
    await failing.save(state);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(warnings).toEqual(["agent session state not saved"]);
  });
});
