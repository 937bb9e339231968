import { afterEach, describe, expect, it } from "vitest";
import type { LlmCaller } from "@weft/types";
import { createAgentHarness, say, type AgentHarness } from "./testing/agent-harness.ts";

let h: AgentHarness;
afterEach(async () => {
  await h?.stop();
});

describe("an agent's LLM calls", () => {
  it("name the agent, its conversation and the user it acts for (usage and budgets need the user before the run is stored)", async () => {
    h = await createAgentHarness({ turns: [say("Hello.")] });
    const agent = await h.create({});
    const callers: LlmCaller[] = [];
    const sent = await agent.sendMessage("Hi", {
      userId: "alice",
      llm: (inner) => ({
        chat: (request, options) => {
          callers.push(options?.caller ?? {});
          return inner.chat(request, options);
        },
      }),
    });
    if (!sent.ok) throw new Error(sent.error.message);
    expect(callers).toEqual([expect.objectContaining({ agentId: "tester", conversationId: agent.conversationId, userId: "alice" })]);
  });
});
