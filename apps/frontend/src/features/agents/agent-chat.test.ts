import { describe, expect, it } from "vitest";
import { AgentStepTraceSchema, type AgentStepTraceInput, type ConversationMessage } from "@weft/types";
import { transcriptOf } from "./agent-chat.ts";

const at = "2026-01-01T00:00:00.000Z";
const user = (id: string, content: string): ConversationMessage => ({ id, createdAt: at, role: "user", content });
const tool = (id: string, content: string): ConversationMessage => ({ id, createdAt: at, role: "tool", tool_call_id: `call-${id}`, content });
const step = (input: Partial<AgentStepTraceInput> & { step: number }): ConversationMessage => ({
  id: `a${input.step}`,
  createdAt: at,
  role: "assistant",
  content: "",
  agentStep: AgentStepTraceSchema.parse({
    agentId: "calc",
    conversationId: "c1",
    protocol: "openai-tools",
    startedAt: 1000,
    durationMs: 5,
    deliberation: { runId: `delib-${input.step}`, status: "completed", durationMs: 4 },
    output: { text: "", toolCalls: [] },
    responseText: "",
    actions: [],
    mistakes: { consecutive: 0, identical: 0 },
    status: "running",
    ...input,
  }),
});
const call = (toolName: string, params: Record<string, unknown>, status: "completed" | "waiting_user" | "skipped", observation = "") => ({
  parse: { kind: "call" as const, toolId: toolName, toolKind: "tool" as const, toolName, params, notes: [] },
  status,
  ok: true,
  observation,
  startedAt: 1,
  durationMs: 0,
});
const kinds = (items: ReturnType<typeof transcriptOf>) =>
  items.map((i) => (i.kind === "step" ? `step ${i.step.step}${i.step.live ? " (live)" : ""}` : `${i.kind}: ${"text" in i ? i.text : i.status}`));

describe("a conversation with an agent, as the chat shows it", () => {
  it("shows the user's message, each step with its Observations kept inside the step, and the final answer", () => {
    const items = transcriptOf({
      messages: [
        user("u1", "multiply a: 6 by b: 7"),
        step({ step: 1, actions: [call("core_math", { a: 6, b: 7, op: "multiply" }, "completed", "Observation: 42")] }),
        tool("o1", "Observation: 42"),
        step({ step: 2, responseText: "It is 42.", status: "completed" }),
      ],
      live: [],
    });
    expect(kinds(items)).toEqual(["user: multiply a: 6 by b: 7", "step 1", "step 2", "answer: It is 42."]);
  });

  it("reads the user's reply to a question back from its Observation, and tells it from a new message", () => {
    const items = transcriptOf({
      messages: [
        user("u1", "Book a table"),
        // The question stops the step; the call after it is skipped (and observed), the question is not.
        step({ step: 1, status: "waiting_user", actions: [call("ask_user", { question: "Which city?" }, "waiting_user"), call("core_math", {}, "skipped", "Not executed")] }),
        tool("o1", "Not executed"),
        tool("r1", 'Observation: Tool `ask_user` executed successfully. Result: {"answer":"Oslo"}'),
        step({ step: 2, responseText: "Booked in Oslo.", status: "completed" }),
        user("u2", "Observation: not an observation, a message"),
      ],
      live: [],
    });
    expect(kinds(items)).toEqual(["user: Book a table", "step 1", "question: Which city?", "reply: Oslo", "step 2", "answer: Booked in Oslo.", "user: Observation: not an observation, a message"]);
  });

  it("adds the message being sent and the steps under way, and says how a loop ended without an answer", () => {
    const messages = [user("u1", "Go on"), step({ step: 1, actions: [call("core_math", {}, "completed", "Observation: 1")] }), tool("o1", "Observation: 1")];
    const going = transcriptOf({
      messages,
      pending: "and then?",
      live: [
        { instanceId: "calc", step: 1, phase: "done", actions: [] },
        { instanceId: "calc", step: 2, phase: "deliberating", actions: [] },
      ],
    });
    expect(kinds(going)).toEqual(["user: Go on", "step 1", "user: and then?", "step 2 (live)"]);
    expect(going[2]).toMatchObject({ pending: true });

    const outOfSteps = transcriptOf({ messages, live: [], state: { status: "max_steps", running: false } });
    expect(kinds(outOfSteps)).toEqual(["user: Go on", "step 1", "ended: max_steps"]);
    const stuck = transcriptOf({ messages: [user("u1", "?"), step({ step: 1, status: "stuck", reason: "The same failing call 3 times." })], live: [], state: { status: "stuck", running: false } });
    expect(stuck.at(-1)).toEqual({ kind: "ended", key: "ended-1", status: "stuck", reason: "The same failing call 3 times." });
    expect(stuck.filter((i) => i.kind === "ended")).toHaveLength(1);
  });
});
