import { afterEach, describe, expect, it } from "vitest";
import { AgentStepTraceSchema, type RunEvent } from "@weft/types";
import { formatObservation, parseAction, renderManifestPrompt } from "../action/index.ts";
import { action, createAgentHarness, say, type AgentHarness } from "./testing/agent-harness.ts";

let h: AgentHarness;
afterEach(async () => {
  await h?.stop();
});

const runStarted = (events: RunEvent[]) => events.filter((e): e is Extract<RunEvent, { type: "run.started" }> => e.type === "run.started");

describe("the <ACTION> loop over a real LLM connection", () => {
  it("runs a tool, then a skill, then answers; every step is traced, logged and linked to its runs", async () => {
    h = await createAgentHarness({
      turns: [
        say(action("core_math", { a: "6", b: "7", op: "multiply" }, "I will multiply first.")),
        say(action("skill_summarize_skill", { text: "one two three four five six", maxWords: "3" })),
        say("6 × 7 = 42, and the summary is: one two three."),
      ],
    });
    const agent = await h.create({ persona: "You are Tester, precise and brief.", tools: ["core:math"], skills: ["summarize-skill"] });
    const sent = await agent.sendMessage("What is 6 times 7? Then summarise: one two three four five six");
    if (!sent.ok) throw new Error(sent.error.message);
    const result = sent.value;
    expect(result).toMatchObject({ status: "completed", text: "6 × 7 = 42, and the summary is: one two three." });
    expect(result.steps.map((s) => s.step)).toEqual([1, 2, 3]);
    for (const s of result.steps) expect(AgentStepTraceSchema.safeParse(s).success).toBe(true);

    const [math, skill, final] = result.steps;
    expect(math!.responseText).toBe("I will multiply first.");
    expect(math!.actions[0]).toMatchObject({ status: "completed", ok: true, parse: { kind: "call", toolId: "core:math", toolKind: "tool", params: { a: 6, b: 7, op: "multiply" } } });
    expect(math!.actions[0]!.observation).toBe('Observation: Tool `core_math` executed successfully. Result: {"result":42}');
    expect(skill!.actions[0]).toMatchObject({
      status: "completed",
      parse: { kind: "call", toolId: "summarize-skill", toolKind: "skill", params: { text: "one two three four five six", maxWords: 3 } },
    });
    expect(skill!.actions[0]!.observation).toContain('"summary":"one two three"');
    expect(final!.actions).toEqual([]);

    // The runs behind each step: the deliberations and the two actions, on their own streams.
    const started = runStarted(h.runEvents);
    const byRun = new Map(started.map((e) => [e.runId, e.workflowId]));
    expect(result.steps.map((s) => byRun.get(s.deliberation.runId))).toEqual(["agent-deliberation", "agent-deliberation", "agent-deliberation"]);
    expect(byRun.get(math!.actions[0]!.runId!)).toBe("single:core:math");
    expect(byRun.get(skill!.actions[0]!.runId!)).toBe("summarize-skill");
    expect(started.find((e) => e.runId === skill!.actions[0]!.runId)?.inputs).toEqual({ text: "one two three four five six", maxWords: 3 });

    // What the LLM got: the manifest and persona first, then each observation as the latest message.
    const first = h.request(0);
    expect(first[0]).toMatchObject({ role: "system" });
    const system = String(first[0]!.content);
    expect(system).toContain(renderManifestPrompt(agent.manifest));
    expect(system).toContain("You are Tester, precise and brief.");
    expect(system).toContain("`<ask_user>`");
    expect(first.slice(1)).toEqual([{ role: "user", content: "What is 6 times 7? Then summarise: one two three four five six" }]);
    const second = h.request(1);
    expect(second.at(-2)).toEqual({ role: "assistant", content: action("core_math", { a: "6", b: "7", op: "multiply" }, "I will multiply first.") });
    expect(second.at(-1)).toEqual({ role: "user", content: math!.actions[0]!.observation });
    expect(h.request(2).at(-1)).toEqual({ role: "user", content: skill!.actions[0]!.observation });

    // The conversation log: protocol-complete, each assistant entry carrying its step's trace.
    const log = await h.conversations.messages(agent.conversationId);
    expect(log.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    const traced = log.flatMap((m) => (m.role === "assistant" && m.agentStep ? [m.agentStep.step] : []));
    expect(traced).toEqual([1, 2, 3]);
    expect(log[2]).toMatchObject({ role: "user", runId: math!.actions[0]!.runId, content: math!.actions[0]!.observation });

    // agent.* events: one stream, seq without gaps, phases in order.
    expect(h.events.every((e) => e.streamId === agent.conversationId)).toBe(true);
    expect(h.events.map((e) => e.seq)).toEqual(h.events.map((_, i) => i));
    const kinds = h.events.map((e) => (e.type === "agent.step" ? `step:${e.phase}` : e.type));
    expect(kinds.slice(0, 6)).toEqual(["step:deliberating", "agent.llm.output", "agent.action.parsed", "step:acting", "agent.observation", "step:done"]);
    expect(h.events.at(-1)).toMatchObject({ type: "agent.finished", status: "completed", text: result.text });
    expect(agent.status).toBe("completed");
  });

  it("drops invented text after </ACTION> and never sends it back, not even quoted in the note", async () => {
    const invented = 'Observation: {"result": 99}';
    const call = action("core_math", { a: "6", b: "7", op: "multiply" }, "Multiplying.");
    h = await createAgentHarness({ turns: [say(`${call}\n${invented}\nSo the answer is 99.`), say("42."), say("Still 42.")] });
    const agent = await h.create({ tools: ["core:math"] });
    const first = await agent.sendMessage("What is 6 times 7?");
    if (!first.ok) throw new Error(first.error.message);
    expect(first.value.text).toBe("42.");
    const second = await agent.sendMessage("Sure?");
    if (!second.ok) throw new Error(second.error.message);

    // Every later request: the kept action, the real observation, a note that says text was dropped — never the text.
    for (const index of [1, 2]) {
      const contents = h.request(index).map((m) => String(m.content));
      for (const content of contents) {
        expect(content).not.toContain(invented);
        expect(content).not.toContain("answer is 99");
      }
      expect(contents.some((c) => c.includes('{"result":42}') && c.includes("after </ACTION> was dropped"))).toBe(true);
    }
    expect(h.request(1).at(-2)).toEqual({ role: "assistant", content: call });
  });

  it("feeds a malformed <ACTION> back as the parser's precise Observation, runs nothing, and accepts the corrected call", async () => {
    const broken = "Computing.\n<ACTION>\n  <core_math>\n    <a>6</a>\n    <b>7</b>\n  </core_math>";
    h = await createAgentHarness({ turns: [say(broken), say(action("core_math", { a: "6", b: "7" })), say("13.")] });
    const agent = await h.create({ tools: ["core:math"] });
    const sent = await agent.sendMessage("6 plus 7?");
    if (!sent.ok) throw new Error(sent.error.message);
    const expected = parseAction(broken, agent.manifest);
    expect(expected.kind).toBe("error");
    const observation = formatObservation(expected as Extract<typeof expected, { kind: "error" }>);
    expect(h.request(1).at(-1)).toEqual({ role: "user", content: observation });
    expect(observation).toMatch(/^Observation: Error \(TRUNCATED\) - /);

    const [bad, fixed] = sent.value.steps;
    expect(bad!.actions[0]).toMatchObject({ status: "rejected", ok: false, parse: { kind: "error", code: "TRUNCATED" } });
    expect(bad!.actions[0]!.runId).toBeUndefined();
    expect(h.events.find((e) => e.type === "agent.action.rejected")).toMatchObject({ step: 1, code: "TRUNCATED" });
    const mathRuns = runStarted(h.runEvents).filter((e) => e.workflowId === "single:core:math");
    expect(mathRuns.map((e) => e.runId)).toEqual([fixed!.actions[0]!.runId]);
    expect(sent.value).toMatchObject({ status: "completed", text: "13." });
  });

  it("names the nearest tool when the model calls one it does not have", async () => {
    h = await createAgentHarness({ turns: [say(action("core_multiply", { a: "2", b: "3" })), say("I cannot multiply.")] });
    const agent = await h.create({ tools: ["core:math", "core:text-transform"] });
    const sent = await agent.sendMessage("2 times 3");
    if (!sent.ok) throw new Error(sent.error.message);
    const rejected = sent.value.steps[0]!.actions[0]!;
    expect(rejected.parse).toMatchObject({ kind: "error", code: "UNKNOWN_TOOL" });
    expect(rejected.observation).toContain("core_multiply");
    expect(rejected.observation).toContain("core_math");
    expect(h.request(1).at(-1)).toEqual({ role: "user", content: rejected.observation });
  });

  it("answers a repeated identical failing call more firmly, then stops as stuck with the reason", async () => {
    const divide = action("core_math", { a: "1", b: "0", op: "divide" });
    h = await createAgentHarness({ turns: [say(divide), say(divide), say(divide), say("never requested")] });
    const agent = await h.create({ tools: ["core:math"], maxSteps: 8 });
    const sent = await agent.sendMessage("1 / 0?");
    if (!sent.ok) throw new Error(sent.error.message);
    expect(sent.value.status).toBe("stuck");
    expect(sent.value.reason).toContain("3 times in a row");
    expect(sent.value.reason).toContain("core_math");
    const observations = sent.value.steps.map((s) => s.actions[0]!.observation);
    expect(observations[0]).toContain("[DIVISION_BY_ZERO]");
    expect(observations[0]).not.toContain("STOP:");
    expect(observations[1]).toContain("STOP: this is attempt 2 of exactly this action");
    expect(h.request(2).at(-1)).toEqual({ role: "user", content: observations[1] });
    expect(sent.value.steps.map((s) => s.mistakes)).toEqual([
      { consecutive: 1, identical: 1 },
      { consecutive: 2, identical: 2 },
      { consecutive: 3, identical: 3 },
    ]);
    expect(h.server.pending()).toBe(1);
    expect(agent.status).toBe("stuck");
    expect(h.events.at(-1)).toMatchObject({ type: "agent.finished", status: "stuck" });
  });

  it("stops as stuck after too many different mistakes in a row", async () => {
    h = await createAgentHarness({ turns: [say(action("nope_a", {})), say(action("nope_b", {})), say(action("nope_c", {})), say("never requested")] });
    const agent = await h.create({ tools: ["core:math"] }, { mistakes: { maxConsecutive: 3 } });
    const sent = await agent.sendMessage("do something");
    if (!sent.ok) throw new Error(sent.error.message);
    expect(sent.value.status).toBe("stuck");
    expect(sent.value.reason).toContain("3 mistakes in a row");
    expect(h.server.pending()).toBe(1);
  });

  it("stops at maxSteps, and resume lets it go on to an answer", async () => {
    h = await createAgentHarness({ turns: [say(action("core_math", { a: "1", b: "1" })), say(action("core_math", { a: "2", b: "2" })), say("Done: 4.")] });
    const agent = await h.create({ tools: ["core:math"], maxSteps: 2 });
    const first = await agent.sendMessage("add things");
    if (!first.ok) throw new Error(first.error.message);
    expect(first.value.status).toBe("max_steps");
    expect(first.value.reason).toContain("all 2 steps");
    expect(first.value.steps).toHaveLength(2);
    expect(h.server.pending()).toBe(1);
    const resumed = await agent.resume();
    if (!resumed.ok) throw new Error(resumed.error.message);
    expect(resumed.value).toMatchObject({ status: "completed", text: "Done: 4." });
    expect(resumed.value.steps.map((s) => s.step)).toEqual([3]);
    expect(h.request(2).at(-1)).toEqual({ role: "user", content: first.value.steps[1]!.actions[0]!.observation });
  });

  it("waits for the user on ask_user, survives a restart, and resumes with the answer as the observation", async () => {
    h = await createAgentHarness({
      turns: [say(action("ask_user", { question: "Which number should I double?" })), say(action("core_math", { a: "21", b: "2", op: "multiply" })), say("Doubled: 42.")],
    });
    const agent = await h.create({ tools: ["core:math"] });
    const asked = await agent.sendMessage("Double my number.");
    if (!asked.ok) throw new Error(asked.error.message);
    expect(asked.value).toMatchObject({ status: "waiting_user", question: "Which number should I double?" });
    expect(asked.value.steps[0]!.actions[0]).toMatchObject({ status: "waiting_user", observation: "" });
    expect(agent.pendingQuestion).toBe("Which number should I double?");
    const refused = await agent.resume();
    expect(refused).toMatchObject({ ok: false, error: { code: "WAITING_FOR_USER" } });
    expect((await h.states.load(agent.conversationId))?.pendingQuestion).toMatchObject({ question: "Which number should I double?", toolName: "ask_user" });

    // A new instance on the same conversation and state store (a restart) continues where it was.
    agent.dispose();
    const again = await h.create({ tools: ["core:math"] }, { conversationId: agent.conversationId });
    expect(again.status).toBe("waiting_user");
    expect(again.pendingQuestion).toBe("Which number should I double?");
    const answered = await again.sendMessage("21");
    if (!answered.ok) throw new Error(answered.error.message);
    expect(answered.value).toMatchObject({ status: "completed", text: "Doubled: 42." });
    expect(answered.value.steps.map((s) => s.step)).toEqual([2, 3]);
    expect(h.request(1).at(-1)).toEqual({ role: "user", content: 'Observation: Tool `ask_user` executed successfully. Result: {"answer":"21"}' });
    const seqs = h.events.map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i));

    // Without its saved session, an instance on the same conversation numbers steps on from the log.
    again.dispose();
    h.server.enqueue(say("Still 42."));
    const fresh = await h.create({ tools: ["core:math"] }, { conversationId: agent.conversationId, stateStore: undefined });
    const more = await fresh.sendMessage("And again?");
    if (!more.ok) throw new Error(more.error.message);
    expect(more.value.steps.map((s) => s.step)).toEqual([4]);
  });

  it("updates its private state through a tool, shows it in the next context and saves it", async () => {
    h = await createAgentHarness({ turns: [say(action("scene_private_set", { path: "favourite.colour", value: "teal" })), say("Noted: teal.")] });
    const agent = await h.create({ tools: ["scene:private-get", "scene:private-set"], initialPrivateState: { notes: [] } });
    const sent = await agent.sendMessage("Remember that my favourite colour is teal.");
    if (!sent.ok) throw new Error(sent.error.message);
    expect(sent.value.status).toBe("completed");
    expect(agent.privateState.get("favourite.colour")).toBe("teal");
    expect(String(h.request(0)[0]!.content)).toContain('PRIVATE_STATE (only you can see it; read it with `scene_private_get`, change it with `scene_private_set`)\n{\n "notes": []\n}');
    expect(String(h.request(1)[0]!.content)).toContain('"favourite": {\n  "colour": "teal"\n }');
    expect((await h.states.load(agent.conversationId))?.privateState).toEqual({ notes: [], favourite: { colour: "teal" } });
  });
});
