import { describe, expect, it } from "vitest";
import { assistantMessage, toolResultMessage, userMessage, withStepTrace } from "@weft/agent-runtime";
import type { AgentActionTrace, AgentStepTrace, ConversationMessage } from "@weft/types";
import { planFork } from "./conversation-fork.ts";

/** A recorded step whose actions observed `observations` (one action each). */
function trace(step: number, observations: string[], status: AgentStepTrace["status"] = "running"): AgentStepTrace {
  const actions: AgentActionTrace[] = observations.map((observation) => ({
    parse: { kind: "error", code: "UNKNOWN_TOOL", message: "m" },
    status: "rejected",
    ok: false,
    observation,
    permissions: [],
    startedAt: 0,
    durationMs: 0,
  }));
  return {
    step,
    agentId: "a",
    conversationId: "c",
    protocol: "openai-tools",
    startedAt: 0,
    durationMs: 1,
    deliberation: { runId: `run-${step}`, status: "completed", durationMs: 1 },
    output: { text: `output ${step}`, toolCalls: [] },
    responseText: "",
    notes: [],
    actions,
    mistakes: { consecutive: 0, identical: 0 },
    status,
  };
}

const said = (t: AgentStepTrace): ConversationMessage => withStepTrace(assistantMessage({ text: t.output.text, toolCalls: [] }), t);

describe("planFork: what a fork copies from a conversation's record", () => {
  const one = trace(1, ["Observation: first"]);
  const two = trace(2, ["r1", "r2"]);
  const three = trace(3, [], "completed");
  const log: ConversationMessage[] = [
    userMessage("hello"),
    said(one),
    userMessage("Observation: first"),
    said(two),
    toolResultMessage({ toolCallId: "x1", result: "r1" }),
    toolResultMessage({ toolCallId: "x2", result: "r2" }),
    said(three),
  ];
  const traces = [one, two, three];

  it("copies a step with its observations when nothing changes, and everything before the step when its LLM output does", () => {
    expect(planFork("c", log, traces, { step: 2 })).toMatchObject({ messages: log.slice(0, 6), steps: [one, two], rerunsStep: false });
    expect(planFork("c", log, traces, { step: 2, llmOutput: "new" })).toMatchObject({ messages: log.slice(0, 3), steps: [one], rerunsStep: true });
  });

  it("puts an edited observation in the copied message and the step's trace", () => {
    const plan = planFork("c", log, traces, { step: 1, observation: "Observation: edited" });
    expect(plan.messages.map((m) => m.content)).toEqual(["hello", "output 1", "Observation: edited"]);
    expect(plan.steps[0]!.actions[0]!.observation).toBe("Observation: edited");
    expect(plan.messages[1]).toMatchObject({ agentStep: { actions: [{ observation: "Observation: edited" }] } });
  });

  it("refuses a step without one observation to edit, a final answer to go on from, a step not in the log", () => {
    expect(() => planFork("c", log, traces, { step: 2, observation: "x" })).toThrow(/step 2 of conversation "c" has 2 observations/);
    expect(() => planFork("c", log, traces, { step: 3 })).toThrow(/has no observation to continue from: it is the agent's final answer/);
    expect(() => planFork("c", log, traces, { step: 4 })).toThrow(/has no step 4; it has steps 1–3/);
    expect(() => planFork("c", [], [], { step: 1 })).toThrow(/has no steps yet/);
    // Stored as a trace, but its assistant message is not in the log.
    expect(() => planFork("c", log.slice(0, 3), traces, { step: 2 })).toThrow(expect.objectContaining({ code: "CONFLICT", details: expect.objectContaining({ reason: "NOT_RECORDED" }) }));
  });
});
