import { afterEach, describe, expect, it } from "vitest";
import { formatObservation, parseToolCallArguments } from "../action/index.ts";
import { createAgentHarness, say, type AgentHarness } from "./testing/agent-harness.ts";

let h: AgentHarness;
afterEach(async () => {
  await h?.stop();
});

type Message = Record<string, unknown> & { role: string; tool_calls?: Array<{ id: string }> };

/** The tool messages right after the assistant message with tool calls, as the provider got them. */
function toolGroup(messages: Message[]): { assistant: Message; results: Message[] } {
  const at = messages.findIndex((m) => m.role === "assistant" && Array.isArray(m.tool_calls));
  if (at < 0) throw new Error("no assistant message with tool_calls in the request");
  const results: Message[] = [];
  for (let i = at + 1; i < messages.length && messages[i]!.role === "tool"; i++) results.push(messages[i]!);
  return { assistant: messages[at]!, results };
}

describe("the native tool-call loop (openai-tools) over a real LLM connection", () => {
  it("sends every result as a role:tool message right after its assistant message, in call order, with the reasoning passed back", async () => {
    h = await createAgentHarness({
      passBackReasoning: true,
      turns: [
        {
          kind: "tool_calls",
          reasoning: ["Two things to do: ", "compute, then shout."],
          calls: [
            { id: "call_math", name: "core_math", arguments: '{"a": 6, "b": 7, "op": "multiply"}' },
            { id: "call_shout", name: "core_text_transform", arguments: '{"text": "  hello  ", "case": "upper"}' },
          ],
        },
        say("42 and HELLO."),
      ],
    });
    const agent = await h.create({ protocol: "openai-tools", tools: ["core:math", "core:text-transform"], skills: ["summarize-skill"] });
    const sent = await agent.sendMessage("Multiply 6 by 7 and shout hello.");
    if (!sent.ok) throw new Error(sent.error.message);
    expect(sent.value).toMatchObject({ status: "completed", text: "42 and HELLO." });

    const offered = (h.server.chatBodies()[0]!.tools as Array<{ function: { name: string; parameters: { properties: Record<string, { enum?: unknown[] }> } } }>).map((t) => t.function);
    expect(offered.map((f) => f.name)).toEqual(["core_math", "core_text_transform", "skill_summarize_skill", "ask_user"]);
    expect(offered[0]!.parameters.properties.op!.enum).toContain("multiply");

    const step = sent.value.steps[0]!;
    expect(step.output.toolCalls.map((c) => c.id)).toEqual(["call_math", "call_shout"]);
    expect(step.output.reasoning).toBe("Two things to do: compute, then shout.");
    expect(step.actions.map((a) => [a.callId, a.status])).toEqual([
      ["call_math", "completed"],
      ["call_shout", "completed"],
    ]);

    const messages = h.request(1) as Message[];
    const { assistant, results } = toolGroup(messages);
    expect(assistant).toMatchObject({ role: "assistant", content: null, reasoning_content: "Two things to do: compute, then shout." });
    expect(assistant.tool_calls!.map((c) => c.id)).toEqual(["call_math", "call_shout"]);
    expect(results).toEqual([
      { role: "tool", tool_call_id: "call_math", content: step.actions[0]!.observation },
      { role: "tool", tool_call_id: "call_shout", content: step.actions[1]!.observation },
    ]);
    expect(messages.indexOf(results[1]!)).toBe(messages.length - 1);
    expect(step.actions[0]!.observation).toBe('Observation: Tool `core_math` executed successfully. Result: {"result":42}');
    expect(step.actions[1]!.observation).toContain('"text":"HELLO"');

    const log = await h.conversations.messages(agent.conversationId);
    expect(log.map((m) => (m.role === "tool" ? `tool:${m.tool_call_id}` : m.role))).toEqual(["user", "assistant", "tool:call_math", "tool:call_shout", "assistant"]);
  });

  it("answers bad arguments with the same precise Observation as the parser, in the call's tool message", async () => {
    const bad = { id: "call_bad", name: "core_math", arguments: '{"a": "six", "c": 1}' };
    h = await createAgentHarness({ turns: [{ kind: "tool_calls", calls: [bad] }, say("Sorry.")] });
    const agent = await h.create({ protocol: "openai-tools", tools: ["core:math"] });
    const sent = await agent.sendMessage("six plus one");
    if (!sent.ok) throw new Error(sent.error.message);
    const expected = parseToolCallArguments({ function: { name: bad.name, arguments: bad.arguments } }, agent.manifest);
    expect(expected.kind).toBe("error");
    const observation = formatObservation(expected as Extract<typeof expected, { kind: "error" }>);
    expect(observation).toMatch(/^Observation: Error \(INVALID_PARAMS\) - /);
    expect(toolGroup(h.request(1) as Message[]).results).toEqual([{ role: "tool", tool_call_id: "call_bad", content: observation }]);
    expect(sent.value.steps[0]!.actions[0]).toMatchObject({ callId: "call_bad", status: "rejected", parse: { kind: "error", code: "INVALID_PARAMS" } });
  });

  it("waits on ask_user, skips the calls after it, and sends the answer as ask_user's result in call order", async () => {
    h = await createAgentHarness({
      turns: [
        {
          kind: "tool_calls",
          calls: [
            { id: "call_ask", name: "ask_user", arguments: '{"question": "Which number?"}' },
            { id: "call_math", name: "core_math", arguments: '{"a": 1, "b": 1}' },
          ],
        },
        say("You said 5."),
      ],
    });
    const agent = await h.create({ protocol: "openai-tools", tools: ["core:math"] });
    const asked = await agent.sendMessage("Add something to my number.");
    if (!asked.ok) throw new Error(asked.error.message);
    expect(asked.value).toMatchObject({ status: "waiting_user", question: "Which number?" });
    expect(asked.value.steps[0]!.actions.map((a) => a.status)).toEqual(["waiting_user", "skipped"]);
    expect(h.runEvents.some((e) => e.type === "run.started" && e.workflowId === "single:core:math")).toBe(false);

    const answered = await agent.sendMessage("5");
    if (!answered.ok) throw new Error(answered.error.message);
    expect(answered.value.status).toBe("completed");
    const { results } = toolGroup(h.request(1) as Message[]);
    expect(results.map((r) => r.tool_call_id)).toEqual(["call_ask", "call_math"]);
    expect(results[0]!.content).toBe('Observation: Tool `ask_user` executed successfully. Result: {"answer":"5"}');
    expect(results[1]!.content).toMatch(/^Not executed: an earlier call in this turn asks the user/);
  });
});
