import { afterEach, describe, expect, it } from "vitest";
import { action, createAgentHarness, say, type AgentHarness } from "./testing/agent-harness.ts";

let h: AgentHarness;
afterEach(async () => {
  await h?.stop();
});

const ask = (extra: Record<string, string> = {}) => say(action("ask_approval", { question: "Pay invoice 17?", ...extra }));

describe("ask_approval", () => {
  it("is offered only to a profile that enables it (askApproval), not by default even where the host takes approvals", async () => {
    h = await createAgentHarness();
    expect((await h.create({})).manifest.getById("ask_approval")).toBeUndefined();
    expect((await h.create({}, { approvals: true, conversationId: "c0" })).manifest.getById("ask_approval")).toBeUndefined();
    expect((await h.create({ askApproval: false }, { approvals: true, conversationId: "c01" })).manifest.getById("ask_approval")).toBeUndefined();
    expect((await h.create({ askApproval: true }, { approvals: true, conversationId: "c2" })).manifest.getById("ask_approval")).toBeDefined();
  });

  it("where the host cannot take approvals (a queue-mode worker), a call gets an error observation saying so and nothing waits", async () => {
    h = await createAgentHarness({ turns: [ask(), say("Going on without it.")] });
    let stored = 0;
    const agent = await h.create({ askApproval: true }, { conversationId: "c6", onApprovalAsked: async () => void stored++ });
    const result = await agent.sendMessage("Pay invoice 17 once approved.");
    expect(result.ok && result.value.status).toBe("completed");
    expect(agent.pendingApproval).toBeUndefined();
    expect(stored).toBe(0);
    expect((await h.states.load("c6"))?.pendingQuestion).toBeUndefined();
    const observation = JSON.stringify(h.request(1).at(-1));
    expect(observation).toContain("ask_approval is not available on this server");
    expect(observation).toContain("queue-mode workers");
  });

  it("ends the loop waiting_approval with the request saved; a message does not answer it; the decision of its step continues the loop", async () => {
    h = await createAgentHarness({ turns: [ask({ role: "owner", timeoutSeconds: "60" }), say("Paid.")] });
    const agent = await h.create({ askApproval: true }, { approvals: true, conversationId: "c1" });
    const waiting = await agent.sendMessage("Pay invoice 17 once approved.");
    expect(waiting.ok && waiting.value.status).toBe("waiting_approval");
    expect(agent.pendingApproval).toMatchObject({ step: 1, request: { question: "Pay invoice 17?", role: "owner", timeoutSeconds: 60, defaultDecision: "rejected" } });
    expect((await h.states.load("c1"))?.pendingQuestion).toMatchObject({ step: 1, approval: { role: "owner" } });

    const message = await agent.sendMessage("just pay");
    expect(!message.ok && message.error.code).toBe("WAITING_FOR_APPROVAL");
    const wrongStep = await agent.answerApproval(7, { decision: "approved", decidedBy: "u1", decidedAt: 1 });
    expect(!wrongStep.ok && wrongStep.error.code).toBe("NOT_WAITING_FOR_APPROVAL");
    expect(h.server.chatBodies()).toHaveLength(1);

    const done = await agent.answerApproval(1, { decision: "approved", decidedBy: "u1", decidedAt: 1, comment: "fine" });
    expect(done.ok && done.value.status).toBe("completed");
    const last = JSON.stringify(h.request(1).at(-1));
    expect(last).toContain("approved");
    expect(last).toContain("fine");
    expect(agent.pendingApproval).toBeUndefined();
  });

  it("stores the request (onApprovalAsked) before the session says it waits; a failure to store it ends the loop failed, not waiting", async () => {
    h = await createAgentHarness({ turns: [ask(), ask()] });
    const seen: Array<string | undefined> = [];
    const agent = await h.create({ askApproval: true }, { approvals: true, conversationId: "c4", onApprovalAsked: async () => void seen.push((await h.states.load("c4"))?.status) });
    const waiting = await agent.sendMessage("Pay.");
    expect(waiting.ok && waiting.value.status).toBe("waiting_approval");
    expect(seen).toHaveLength(1);
    expect(seen[0]).not.toBe("waiting_approval");

    const broken = await h.create(
      { askApproval: true },
      {
        approvals: true,
        conversationId: "c5",
        onApprovalAsked: () => Promise.reject(new Error("database is down")),
      },
    );
    const failed = await broken.sendMessage("Pay.");
    expect(failed.ok && failed.value.status).toBe("failed");
    expect(broken.pendingApproval).toBeUndefined();
    expect((await h.states.load("c5"))?.status).toBe("failed");
  });

  it("refuses invalid parameters with an observation, without waiting", async () => {
    h = await createAgentHarness({ turns: [ask({ timeoutSeconds: "-5" }), say("Understood.")] });
    const agent = await h.create({ askApproval: true }, { approvals: true, conversationId: "c3" });
    const result = await agent.sendMessage("Ask.");
    expect(result.ok && result.value.status).toBe("completed");
    const observation = JSON.stringify(h.request(1).at(-1));
    expect(observation).toContain("ask_approval was not asked");
    expect(observation).toContain("timeoutSeconds");
  });
});
