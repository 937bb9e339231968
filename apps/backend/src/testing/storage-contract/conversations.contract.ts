import { describe, expect, it } from "vitest";
import type { AgentSessionState, AgentStepTrace, ConversationMessage } from "@weft/types";
import { redactorWith, storageOpener, type StorageHarness } from "./harness.ts";

const user = (id: string, content: string): ConversationMessage => ({ id, role: "user", content, createdAt: "2026-01-01T00:00:00.000Z" });

function step(conversationId: string, n: number, text = `step ${n}`): AgentStepTrace {
  return {
    step: n,
    agentId: "agent",
    conversationId,
    protocol: "action-xml",
    startedAt: 1000 + n,
    durationMs: 5,
    deliberation: { runId: `run-${n}`, status: "completed", durationMs: 4 },
    output: { text, toolCalls: [] },
    responseText: text,
    notes: [],
    actions: [],
    mistakes: { consecutive: 0, identical: 0 },
    status: "running",
  };
}

function session(conversationId: string, steps: number, extra: Partial<AgentSessionState> = {}): AgentSessionState {
  return { agentId: "agent", conversationId, status: "waiting_user", steps, nextEventSeq: steps * 3, privateState: { mood: "ok", n: steps }, updatedAt: 5000 + steps, ...extra };
}

export function conversationsContract(harness: StorageHarness): void {
  describe(`storage contract (${harness.engine}): conversations`, () => {
    const { fresh } = storageOpener(harness);

    it("create (refusing a taken id), get, set the mode, list an agent's conversations newest first", async () => {
      const storage = await fresh();
      const c1 = await storage.conversations.create({ id: "c1", title: "first", agentId: "agent" });
      expect(c1).toMatchObject({ id: "c1", title: "first", agentId: "agent", activeMode: "chat" });
      await expect(storage.conversations.create({ id: "c1" })).rejects.toMatchObject({ code: "CONVERSATION_EXISTS" });
      const generated = await storage.conversations.create({});
      expect(generated.id).not.toBe("");
      await Bun.sleep(2);
      await storage.conversations.create({ id: "c2", agentId: "agent" });
      await Bun.sleep(2);
      const moded = await storage.conversations.setActiveMode("c1", "run");
      expect(moded.activeMode).toBe("run");
      expect(await storage.conversations.get("c1")).toEqual(moded);
      expect(await storage.conversations.get("none")).toBeUndefined();
      expect((await storage.conversations.listByAgent("agent", 10)).map((c) => c.id)).toEqual(["c1", "c2"]);
      expect((await storage.conversations.listByAgent("agent", 1)).map((c) => c.id)).toEqual(["c1"]);
      await expect(storage.conversations.setActiveMode("none", "run")).rejects.toMatchObject({ code: "CONVERSATION_NOT_FOUND" });
    });

    it("create forks that name their parent and list a conversation's forks oldest first", async () => {
      const storage = await fresh();
      await storage.conversations.create({ id: "p", agentId: "agent" });
      const f1 = await storage.conversations.createFork({ id: "f1", title: "t", agentId: "agent", forkOf: { conversationId: "p", step: 2 }, forkChanges: { observation: "edited" } });
      expect(f1).toMatchObject({ id: "f1", activeMode: "agent", forkOf: { conversationId: "p", step: 2 }, forkChanges: { observation: "edited" } });
      await Bun.sleep(2);
      await storage.conversations.createFork({ id: "f2", title: "t", agentId: "agent", forkOf: { conversationId: "p", step: 1 }, forkChanges: {} });
      await storage.conversations.createFork({ id: "g", title: "t", agentId: "agent", forkOf: { conversationId: "f1", step: 3 }, forkChanges: { agentVersion: 2 } });
      await expect(storage.conversations.createFork({ id: "f1", title: "t", agentId: "agent", forkOf: { conversationId: "p", step: 1 }, forkChanges: {} })).rejects.toMatchObject({
        code: "CONVERSATION_EXISTS",
      });
      expect((await storage.conversations.listForks("p", 10)).map((c) => c.id)).toEqual(["f1", "f2"]);
      expect((await storage.conversations.listForks("p", 1)).map((c) => c.id)).toEqual(["f1"]);
      expect((await storage.conversations.listForks("f1", 10)).map((c) => [c.id, c.forkChanges])).toEqual([["g", { agentVersion: 2 }]]);
      expect(await storage.conversations.listForks("g", 10)).toEqual([]);
      expect(await storage.conversations.get("f1")).toEqual(f1);
    });

    it("append messages in order, numbered from 0; refuse a duplicate id or an invalid message, appending none of them", async () => {
      const storage = await fresh(redactorWith("sk-conversation-secret"));
      const created = await storage.conversations.create({ id: "c" });
      await Bun.sleep(2);
      await storage.conversations.append("c", [user("m1", "hello"), user("m2", "the key is sk-conversation-secret")]);
      const touched = await storage.conversations.get("c");
      expect(touched && Date.parse(touched.updatedAt) > Date.parse(created.updatedAt)).toBe(true);
      expect(touched?.createdAt).toBe(created.createdAt);
      await storage.conversations.append("c", [user("m3", "third")]);
      await expect(storage.conversations.append("c", [user("m4", "x"), user("m1", "again")])).rejects.toMatchObject({ code: "DUPLICATE_MESSAGE_ID", message: expect.stringContaining('"m1"') });
      await expect(storage.conversations.append("c", [user("m4", "x"), user("m4", "twice")])).rejects.toMatchObject({ code: "DUPLICATE_MESSAGE_ID", message: expect.stringContaining('"m4"') });
      await expect(storage.conversations.append("c", [user("m5", "x"), { id: "bad" } as unknown as ConversationMessage])).rejects.toMatchObject({ code: "INVALID_MESSAGE" });
      await expect(storage.conversations.append("none", [user("m", "x")])).rejects.toMatchObject({ code: "CONVERSATION_NOT_FOUND" });
      const messages = await storage.conversations.messages("c");
      expect(messages.map((m) => m.id)).toEqual(["m1", "m2", "m3"]);
      expect(JSON.stringify(messages)).not.toContain("sk-conversation-secret");
      expect((await storage.conversations.messagesAfter("c", 0)).map((m) => [m.seq, m.message.id])).toEqual([
        [1, "m2"],
        [2, "m3"],
      ]);
      expect(await storage.conversations.messagesAfter("c", 2)).toEqual([]);
      await expect(storage.conversations.messages("none")).rejects.toMatchObject({ code: "CONVERSATION_NOT_FOUND" });
    });
  });

  describe(`storage contract (${harness.engine}): conversations from two storages`, () => {
    const { database } = storageOpener(harness);

    it("appends to one conversation from two storages at once are numbered one after the other, none lost", async () => {
      const db = await database();
      const [one, two] = [await db.open(), await db.open()];
      await one.conversations.create({ id: "shared" });
      await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? one : two).conversations.append("shared", [user(`m${i}a`, "a"), user(`m${i}b`, "b")])));
      const numbered = await two.conversations.messagesAfter("shared", -1);
      expect(numbered.map((m) => m.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i));
      expect(new Set(numbered.map((m) => m.message.id)).size).toBe(20);
      // The two messages of each append stay together.
      for (let i = 0; i < 20; i += 2) expect(numbered[i + 1].message.id).toBe(numbered[i].message.id.replace(/a$/, "b"));
    });
  });

  describe(`storage contract (${harness.engine}): agent sessions and steps`, () => {
    const { fresh } = storageOpener(harness);

    it("save and load a session, replacing the earlier one", async () => {
      const storage = await fresh();
      expect(await storage.agentSessions.load("c")).toBeUndefined();
      await storage.agentSessions.save(session("c", 1));
      const later = session("c", 2, { status: "completed", pendingQuestion: { question: "why?", step: 2, toolName: "ask_user" } });
      await storage.agentSessions.save(later);
      expect(await storage.agentSessions.load("c")).toEqual(later);
    });

    it("save steps by number (a step saved again replaces it) and list them in order", async () => {
      const storage = await fresh(redactorWith("sk-step-secret"));
      await storage.agentSteps.save("c", [step("c", 2), step("c", 1)]);
      await storage.agentSteps.save("c", [step("c", 2, "redone with sk-step-secret"), step("c", 3)]);
      await storage.agentSteps.save("other", [step("other", 1)]);
      const steps = await storage.agentSteps.list("c");
      expect(steps.map((s) => [s.step, s.responseText])).toEqual([
        [1, "step 1"],
        [2, "redone with [redacted:contract secret]"],
        [3, "step 3"],
      ]);
      expect(await storage.agentSteps.list("none")).toEqual([]);
    });
  });
}
