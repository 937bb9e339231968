import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startScriptedLlmServer, type ScriptedLlmServer, type ScriptedTurn } from "@weft/agent-runtime";
import { ConversationSchema, SceneSchema, SceneStateViewSchema, SceneTimelineSchema, type SceneLogEntry, type SceneTimeline } from "@weft/types";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { ConversationAnswerSchema, ProfileIdAnswerSchema } from "../testing/answers.ts";
import { startTestServer, type TestServer } from "../testing/test-server.ts";
import { createTestUser } from "../testing/users.ts";
import { until } from "../testing/until.ts";

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
const say = (text: string): ScriptedTurn => ({ kind: "text", chunks: [text] });
const setWorldText = (path: string, value: string) => `Setting ${path}.\n<ACTION>\n  <scene_world_set>\n    <path>${path}</path>\n    <value>${value}</value>\n  </scene_world_set>\n</ACTION>`;
const setWorld = (path: string, value: string): ScriptedTurn => say(setWorldText(path, value));
const Forked = z.object({ sceneId: z.string() });
const SceneAnswer = z.object({ scene: SceneSchema });
const ConversationView = ConversationAnswerSchema.extend({ forks: z.array(ConversationSchema) });

let t: TestServer;
let llm: ScriptedLlmServer;
beforeAll(async () => {
  llm = await startScriptedLlmServer();
  t = await startTestServer({ examplesDir: EXAMPLES });
  const profile = await t.call("POST", "/api/llm-profiles", { name: "scripted", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0 });
  expect(profile.status).toBe(201);
  const agent = await t.call("POST", "/api/agents", {
    id: "counter",
    name: "Counter",
    persona: "PERSONA-ONE: you count.",
    deliberationWorkflowId: "agent-deliberation",
    llmProfileId: ProfileIdAnswerSchema.parse(profile.body).profile.id,
    tools: ["scene:world-set"],
    maxSteps: 6,
  });
  expect(agent.status).toBe(201);
  expect((await t.call("POST", "/api/scenes", { id: "tally", name: "Tally", agents: [{ instanceId: "ann", profileId: "counter" }], initialWorldState: { n: 0 } })).status).toBe(201);
});
afterAll(async () => {
  await t?.stop();
  await llm?.stop();
});

const stateOf = async (sceneId: string) => SceneStateViewSchema.parse((await t.call("GET", `/api/scenes/${sceneId}/state`)).body);
const conversationOf = async (sceneId: string, instanceId = "ann") => {
  const id = (await stateOf(sceneId)).agents.find((a) => a.instanceId === instanceId)?.conversationId ?? "";
  return ConversationView.parse((await t.call("GET", `/api/conversations/${id}`)).body);
};
/** The texts of a chat request's messages, in order. */
const requestTexts = (body: unknown) =>
  z
    .object({ messages: z.array(z.object({ content: z.unknown() })) })
    .parse(body)
    .messages.map((m) => JSON.stringify(m.content));
const timelineOf = async (sceneId: string) => SceneTimelineSchema.parse((await t.call("GET", `/api/scenes/${sceneId}/timeline`)).body);
const worldChanges = (entries: readonly SceneLogEntry[]) => entries.flatMap((e) => (e.kind === "world.changed" ? [{ path: e.change.path, before: e.change.before, after: e.change.after }] : []));
/** The scene once its agent has finished a deliberation of `steps` steps and nothing waits. */
const settled = (sceneId: string, steps: number) =>
  until(`scene ${sceneId} to settle after ${steps} steps`, async () => {
    const state = SceneStateViewSchema.parse((await t.call("GET", `/api/scenes/${sceneId}/state`)).body);
    const timeline = await timelineOf(sceneId);
    const idle = state.agents.every((a) => a.status === "idle" && a.queue.length === 0 && a.inFlight === null);
    return idle && timeline.steps.length >= steps && timeline.entries.some((e) => e.kind === "deliberation.finished") ? { state, timeline } : undefined;
  });

describe("forking a scene agent's step", () => {
  let original: SceneTimeline;
  let triggerId: string;

  it("at step 2 of 4: no model call for steps 1-2, the world at the fork point is the original's, the edited step applied and the rest live", async () => {
    llm.enqueue(setWorld("n", "1"), setWorld("n", "2"), setWorld("n", "3"), say("Counted to 3."));
    expect((await t.call("POST", "/api/scenes/tally/start")).status).toBe(200);
    expect((await t.call("POST", "/api/scenes/tally/messages", { to: "ann", text: "Count to three." })).status).toBe(202);
    original = (await settled("tally", 4)).timeline;
    expect(llm.chatBodies()).toHaveLength(4);
    const outputs = original.entries.filter((e) => e.kind === "llm.output");
    expect(outputs).toHaveLength(4);
    triggerId = outputs[0]!.kind === "llm.output" ? outputs[0]!.triggerId : "";
    // The world just before step 2's model answer in the original.
    const step2 = outputs[1]!.seq;
    const beforePoint = worldChanges(original.entries.filter((e) => e.seq < step2));
    expect(beforePoint).toEqual([{ path: "n", before: 0, after: 1 }]);

    // Only steps 3 and 4 of the fork may ask the model.
    llm.enqueue(setWorld("m", "live"), say("Forked and done."));
    const edited = "<ACTION>\n  <scene_world_set>\n    <path>n</path>\n    <value>20</value>\n  </scene_world_set>\n</ACTION>";
    const forked = await t.call("POST", "/api/scenes/tally/fork", { instanceId: "ann", triggerId, step: 2, llmOutput: edited });
    expect(forked.status, JSON.stringify(forked.body)).toBe(202);
    const forkId = Forked.parse(forked.body).sceneId;
    expect(forkId).toMatch(/^tally--fork-/);

    const fork = await settled(forkId, 4);
    expect(llm.chatBodies()).toHaveLength(6);
    // Steps 1-2 came from the record: the fork's log holds the original's entries before the point as they were.
    const forkOutputs = fork.timeline.entries.filter((e) => e.kind === "llm.output").map((e) => (e.kind === "llm.output" ? e.text : ""));
    expect(forkOutputs).toEqual([
      outputs[0]!.kind === "llm.output" ? outputs[0]!.text : "",
      edited,
      "Setting m.\n<ACTION>\n  <scene_world_set>\n    <path>m</path>\n    <value>live</value>\n  </scene_world_set>\n</ACTION>",
      "Forked and done.",
    ]);
    // The edited step's action ran live on the fork-point world (n was 1, as in the original before step 2), then step 3.
    expect(worldChanges(fork.timeline.entries)).toEqual([...beforePoint, { path: "n", before: 1, after: 20 }, { path: "m", after: "live" }]);
    expect(fork.state.world).toEqual({ n: 20, m: "live" });
    // The model's first request of the fork (step 3) carries the edited answer in its history.
    expect(JSON.stringify(llm.chatBodies()[4])).toContain("<value>20</value>");
    // The fork's conversation carries the steps before the point as recorded (step 1), the edited one and the live ones,
    // and names the original's conversation and step: both branches show from step 2.
    const parentChat = await conversationOf("tally");
    const forkChat = await conversationOf(forkId);
    expect(forkChat.conversation.forkOf).toEqual({ conversationId: parentChat.conversation.id, step: 2 });
    expect(forkChat.conversation.forkChanges).toEqual({ llmOutput: edited });
    const stepTexts = (view: z.infer<typeof ConversationView>) => view.messages.flatMap((m) => (m.role === "assistant" && m.agentStep ? [m.content] : []));
    expect(stepTexts(forkChat)).toEqual(forkOutputs);
    expect(stepTexts(forkChat)[0]).toBe(stepTexts(parentChat)[0]);
    expect(parentChat.forks.map((f) => f.id)).toEqual([forkChat.conversation.id]);
    // The original is untouched.
    expect(SceneStateViewSchema.parse((await t.call("GET", "/api/scenes/tally/state")).body).world).toEqual({ n: 3 });

    // What was changed, on the fork's scene.
    const scene = SceneAnswer.parse((await t.call("GET", `/api/scenes/${forkId}`)).body).scene;
    expect(scene.forkOf).toMatchObject({
      sceneId: "tally",
      instanceId: "ann",
      triggerId,
      step: 2,
      changed: "llmOutput",
      before: outputs[1]!.kind === "llm.output" ? outputs[1]!.text : "",
      after: edited,
    });
  });

  it("with step 2's observation edited: the call is not run again (its write stands), the model is told the edited observation", async () => {
    const before = llm.chatBodies().length;
    llm.enqueue(say("Forked on an edited observation."));
    const forked = await t.call("POST", "/api/scenes/tally/fork", { instanceId: "ann", triggerId, step: 2, observation: { text: "OBSERVED-EDITED: n is now 99" } });
    expect(forked.status, JSON.stringify(forked.body)).toBe(202);
    const forkId = Forked.parse(forked.body).sceneId;
    const fork = await settled(forkId, 3);
    // Steps 1 and 2 (its call too) from the record: one request, for step 3, which carries the edited observation.
    expect(llm.chatBodies()).toHaveLength(before + 1);
    expect(JSON.stringify(llm.chatBodies()[before])).toContain("OBSERVED-EDITED: n is now 99");
    expect(worldChanges(fork.timeline.entries)).toEqual(worldChanges(original.entries).slice(0, 2));
    expect(fork.state.world).toEqual({ n: 2 });
    const scene = SceneAnswer.parse((await t.call("GET", `/api/scenes/${forkId}`)).body).scene;
    expect(scene.forkOf).toMatchObject({ step: 2, changed: "observation", index: 0, after: "OBSERVED-EDITED: n is now 99" });
  });

  it("refuses a step that was not recorded, a body with both or neither edit, and a viewer, precisely", async () => {
    const missing = await t.call("POST", "/api/scenes/tally/fork", { instanceId: "ann", triggerId, step: 9, llmOutput: "x" });
    expect(missing.status).toBe(404);
    expect(ErrorBodySchema.parse(missing.body).error.message).toContain("No model output of step 9 is recorded");
    const both = await t.call("POST", "/api/scenes/tally/fork", { instanceId: "ann", triggerId, step: 1, llmOutput: "x", observation: { text: "y" } });
    expect(both.status).toBe(400);
    expect(JSON.stringify(both.body)).toContain("give llmOutput or observation (one of them)");
    expect((await t.call("POST", "/api/scenes/ghost/fork", { instanceId: "ann", triggerId, step: 1, llmOutput: "x" })).status).toBe(404);
    const viewer = await createTestUser(t, "vic", "viewer");
    const requests = llm.chatBodies().length;
    expect((await viewer.call("POST", "/api/scenes/tally/fork", { instanceId: "ann", triggerId, step: 1, llmOutput: "x" })).status).toBe(403);
    expect(llm.chatBodies()).toHaveLength(requests);
  });
  it("with another version of the agent's profile: the live steps run that version, recorded on the fork", async () => {
    const agent = z.object({ agent: z.looseObject({ revision: z.number() }) }).parse((await t.call("GET", "/api/agents/counter")).body).agent;
    const saved = await t.call("PUT", "/api/agents/counter", { agent: { ...agent, persona: "PERSONA-TWO: you count differently." }, baseRevision: agent.revision });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);

    const before = llm.chatBodies().length;
    llm.enqueue(say("Version one answers."));
    const forked = await t.call("POST", "/api/scenes/tally/fork", { instanceId: "ann", triggerId, step: 3, observation: { text: "n is 3" }, agentVersion: 1 });
    expect(forked.status, JSON.stringify(forked.body)).toBe(202);
    const forkId = Forked.parse(forked.body).sceneId;
    await settled(forkId, 4);
    // Steps 1-3 from the record; step 4 asked the model as version 1 of the profile.
    expect(llm.chatBodies()).toHaveLength(before + 1);
    const sent = requestTexts(llm.chatBodies()[before]).join("\n");
    expect(sent).toContain("PERSONA-ONE");
    expect(sent).not.toContain("PERSONA-TWO");
    const scene = SceneAnswer.parse((await t.call("GET", `/api/scenes/${forkId}`)).body).scene;
    expect(scene.agents[0]).toMatchObject({ instanceId: "ann", profileId: "counter", profileVersion: 1 });
    expect(scene.forkOf).toMatchObject({ step: 3, changed: "observation", agentVersion: 1 });
    expect((await conversationOf(forkId)).conversation.forkChanges).toEqual({ observation: "n is 3", agentVersion: 1 });

    const missing = await t.call("POST", "/api/scenes/tally/fork", { instanceId: "ann", triggerId, step: 2, llmOutput: "x", agentVersion: 9 });
    expect(missing.status).toBe(404);
    expect(ErrorBodySchema.parse(missing.body).error.message).toContain('agent "counter" has no version 9');
    expect(llm.chatBodies()).toHaveLength(before + 1);
  });

  it("at a later deliberation: the fork's conversation holds the agent's earlier deliberations, so its live steps see them", async () => {
    llm.enqueue(setWorld("n", "4"), say("Counted on."));
    expect((await t.call("POST", "/api/scenes/tally/messages", { to: "ann", text: "Count on by one." })).status).toBe(202);
    const timeline = (await settled("tally", 6)).timeline;
    await until("the second deliberation to finish", async () => ((await timelineOf("tally")).entries.filter((e) => e.kind === "deliberation.finished").length === 2 ? true : undefined));
    const second = (await timelineOf("tally")).entries.find((e) => e.kind === "llm.output" && e.triggerId !== triggerId);
    expect(second?.kind === "llm.output" && second.step).toBe(1);
    expect(timeline.steps.length).toBeGreaterThanOrEqual(5);

    const before = llm.chatBodies().length;
    llm.enqueue(say("Forked in the second deliberation."));
    const forked = await t.call("POST", "/api/scenes/tally/fork", { instanceId: "ann", triggerId: second?.kind === "llm.output" ? second.triggerId : "", step: 1, llmOutput: setWorldText("n", "40") });
    expect(forked.status, JSON.stringify(forked.body)).toBe(202);
    const forkId = Forked.parse(forked.body).sceneId;
    await until(`fork ${forkId} to finish its deliberation`, async () =>
      (await timelineOf(forkId)).entries.some((e) => e.kind === "deliberation.finished" && e.triggerId !== triggerId) ? true : undefined,
    );
    expect(llm.chatBodies()).toHaveLength(before + 1);
    // The one live request (step 2 of the second deliberation) carries the first deliberation: its message and its answer.
    const sent = requestTexts(llm.chatBodies()[before]).join("\n");
    expect(sent).toContain("Count to three.");
    expect(sent).toContain("Counted to 3.");
    expect(sent).toContain("<value>40</value>");
    // Its conversation: the first deliberation's four steps copied, then the forked one's; forked at the conversation's step 5.
    const parentChat = await conversationOf("tally");
    const forkChat = await conversationOf(forkId);
    expect(forkChat.conversation.forkOf).toEqual({ conversationId: parentChat.conversation.id, step: 5 });
    expect(forkChat.messages.filter((m) => m.role === "assistant" && m.agentStep).map((m) => (m.role === "assistant" ? m.agentStep?.step : 0))).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("keeps forkOf as the fork route set it: a PUT or POST of a scene cannot set, change or remove it", async () => {
    const fork = z
      .object({ scenes: z.array(SceneSchema) })
      .parse((await t.call("GET", "/api/scenes")).body)
      .scenes.find((s) => s.forkOf?.sceneId === "tally");
    expect(fork?.forkOf).toBeDefined();
    const stored = SceneAnswer.parse((await t.call("GET", `/api/scenes/${fork?.id ?? ""}`)).body).scene;
    const withoutForkOf = { ...stored, name: "Renamed fork" };
    delete withoutForkOf.forkOf;
    const put = await t.call("PUT", `/api/scenes/${stored.id}`, { scene: withoutForkOf, baseRevision: stored.revision });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const after = SceneAnswer.parse((await t.call("GET", `/api/scenes/${stored.id}`)).body).scene;
    expect(after.name).toBe("Renamed fork");
    expect(after.forkOf).toEqual(stored.forkOf);

    const forged = { ...stored.forkOf!, sceneId: "elsewhere" };
    const original = SceneAnswer.parse((await t.call("GET", "/api/scenes/tally")).body).scene;
    expect((await t.call("PUT", "/api/scenes/tally", { scene: { ...original, forkOf: forged }, baseRevision: original.revision })).status).toBe(200);
    expect(SceneAnswer.parse((await t.call("GET", "/api/scenes/tally")).body).scene.forkOf).toBeUndefined();
    expect((await t.call("POST", "/api/scenes", { id: "posed", name: "Posed", agents: [{ instanceId: "ann", profileId: "counter" }], forkOf: forged })).status).toBe(201);
    expect(SceneAnswer.parse((await t.call("GET", "/api/scenes/posed")).body).scene.forkOf).toBeUndefined();
  });
});
