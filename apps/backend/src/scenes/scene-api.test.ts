import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startScriptedLlmServer } from "@weft/agent-runtime";
import { AgentTriggerSchema, SceneSchema, SceneStateViewSchema, SceneTimelineSchema, type SceneStateView } from "@weft/types";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { ProfileIdAnswerSchema } from "../testing/answers.ts";
import { startTestServer, type TestServer } from "../testing/test-server.ts";
import { TestWsClient } from "../testing/ws-client.ts";
import { until } from "../testing/until.ts";

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ examplesDir: EXAMPLES });
});
afterAll(() => t.stop());

/** The notice board's world: the note on its board. */
const BoardWorldSchema = z.object({ board: z.object({ note: z.unknown() }) });
const SceneAnswerSchema = z.object({ scene: SceneSchema });
/** POST /api/scenes/:id/messages: the triggers it queued. */
const SentSchema = z.object({ triggers: z.array(AgentTriggerSchema) });
const errorOf = (body: unknown) => ErrorBodySchema.parse(body).error;
const stateOf = (body: unknown) => SceneStateViewSchema.parse(body);
const sceneState = async () => SceneStateViewSchema.parse((await t.call("GET", "/api/scenes/notice-board/state")).body);
const sceneTimeline = async () => SceneTimelineSchema.parse((await t.call("GET", "/api/scenes/notice-board/timeline")).body);

const settled = (s: SceneStateView) => s.agents.every((a) => a.status === "idle" && a.queue.length === 0 && a.inFlight === null);

describe("the example scene with the demo LLM", () => {
  it("is loaded on first start; Scribe posts the note, Herald is woken by the event, reads the world and answers", async () => {
    expect(SceneAnswerSchema.parse((await t.call("GET", "/api/scenes/notice-board")).body).scene.agents.map((a) => a.profileId)).toEqual(["scribe", "herald"]);
    const ws = await TestWsClient.connect(t.url);
    ws.subscribe("notice-board");

    const started = await t.call("POST", "/api/scenes/notice-board/start");
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ sceneId: "notice-board", status: "running", live: true, world: { board: { note: null } } });
    const sent = await t.call("POST", "/api/scenes/notice-board/messages", { to: "scribe", text: 'Post the note "The bridge is open"' });
    expect(sent.status).toBe(202);
    expect(SentSchema.parse(sent.body).triggers).toMatchObject([{ kind: "user", to: "scribe" }]);

    const state = await until("the scene to settle with Herald's answer", async () => {
      const s = await sceneState();
      const timeline = await sceneTimeline();
      const heraldDone = timeline.steps.some((st) => st.instanceId === "herald" && st.trace.status === "completed");
      return settled(s) && heraldDone ? s : undefined;
    });
    expect(state.world).toEqual({ board: { note: "The bridge is open" } });
    expect(state.worldChanges).toMatchObject([{ path: "board.note", after: "The bridge is open", agentId: "scribe" }]);
    expect(state.budget).toEqual({ limit: 20, used: 1 });

    const timeline = await sceneTimeline();
    const kinds = timeline.entries.map((e) => e.kind);
    expect(kinds).toContain("llm.output");
    expect(timeline.entries.find((e) => e.kind === "event")).toMatchObject({ topic: "world.note-posted", source: "scribe", payload: "The bridge is open" });
    const herald = timeline.steps.filter((s) => s.instanceId === "herald");
    expect(herald[0]?.trace.actions[0]).toMatchObject({ ok: true, parse: { toolName: "scene_world_get" } });
    expect(herald.at(-1)?.trace.responseText).toContain("The bridge is open");
    const runId = herald[0]!.trace.deliberation.runId;
    await until("the deliberation run to be stored", async () => ((await t.call("GET", `/api/runs/${runId}`)).status === 200 ? true : undefined));

    const live = await ws.waitFor((c) => {
      const events = c.events("notice-board");
      return events.some((e) => e.type === "agent.finished" && e.agentId === "herald") ? events : undefined;
    });
    expect(live.map((e) => e.seq)).toEqual(live.map((_, i) => i));
    expect(live.some((e) => e.type === "world.changed" && e.path === "board.note")).toBe(true);
    expect(live.some((e) => e.type === "scene.event" && e.topic === "world.note-posted")).toBe(true);
    ws.close();

    const replay = await t.call("POST", "/api/scenes/notice-board/replay");
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ ok: true, matches: true, divergences: [], unused: {}, world: { board: { note: "The bridge is open" } } });
  });
});

describe("scene controls", () => {
  it("pauses, resumes and stops; refuses what does not fit the scene's state with precise errors", async () => {
    expect(errorOf((await t.call("POST", "/api/scenes/notice-board/messages", { to: "nobody", text: "hi" })).body)).toMatchObject({ code: "NOT_FOUND", details: { sceneError: "UNKNOWN_INSTANCE" } });
    expect((await t.call("POST", "/api/scenes/notice-board/messages", { to: "scribe", text: "  " })).status).toBe(400);
    expect(errorOf((await t.call("POST", "/api/scenes/notice-board/start")).body)).toMatchObject({ code: "CONFLICT", message: expect.stringContaining("already running") });
    expect(errorOf((await t.call("POST", "/api/scenes/notice-board/agents/herald/answer", { text: "yes" })).body)).toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining("asked nothing"),
    });
    expect((await t.call("POST", "/api/scenes/notice-board/agents/herald/permissions/nope", { answer: "once" })).status).toBe(404);

    expect(stateOf((await t.call("POST", "/api/scenes/notice-board/pause")).body).status).toBe("paused");
    const queued = await t.call("POST", "/api/scenes/notice-board/messages", { to: "scribe", text: 'Post the note "Paused news"' });
    expect(queued.status).toBe(202);
    const paused = await sceneState();
    expect(paused.agents.find((a) => a.instanceId === "scribe")?.queue).toMatchObject([{ kind: "user", text: 'Post the note "Paused news"' }]);
    expect(BoardWorldSchema.parse(paused.world).board.note).toBe("The bridge is open");

    expect(stateOf((await t.call("POST", "/api/scenes/notice-board/resume")).body).status).toBe("running");
    await until("the queued note to be posted", async () => {
      const s = await sceneState();
      return BoardWorldSchema.parse(s.world).board.note === "Paused news" && settled(s) ? s : undefined;
    });
    const stopped = await t.call("POST", "/api/scenes/notice-board/stop");
    expect(stopped.body).toMatchObject({ status: "stopped" });
    expect(errorOf((await t.call("POST", "/api/scenes/notice-board/resume")).body)).toMatchObject({ code: "CONFLICT", details: { sceneError: "INVALID_TRANSITION" } });
    expect((await t.call("POST", "/api/scenes/ghost/start")).status).toBe(404);

    const restarted = await t.call("POST", "/api/scenes/notice-board/start");
    expect(restarted.body).toMatchObject({ status: "running", world: { board: { note: null } } });
    expect(stateOf(restarted.body).sessionId).not.toBe(stateOf(stopped.body).sessionId);
    expect((await sceneTimeline()).entries.map((e) => e.seq).slice(0, 1)).toEqual([0]);
    await t.call("POST", "/api/scenes/notice-board/stop");
  });
});

describe("questions of agents in a scene", () => {
  it("shows an agent waiting for the user, takes the answer through the scene and lets it go on", async () => {
    const llm = await startScriptedLlmServer({
      turns: [
        { kind: "text", chunks: ["I need to know.\n<ACTION>\n  <ask_user>\n    <question>Which city?</question>\n  </ask_user>\n</ACTION>"] },
        { kind: "text", chunks: ["<ACTION>\n  <scene_world_set>\n    <path>city</path>\n    <value>Oslo</value>\n  </scene_world_set>\n</ACTION>"] },
        { kind: "text", chunks: ["Noted: Oslo."] },
      ],
    });
    try {
      const profile = await t.call("POST", "/api/llm-profiles", { name: "scripted-asker", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0 });
      await t.call("POST", "/api/agents", {
        id: "asker",
        name: "Asker",
        deliberationWorkflowId: "agent-deliberation",
        llmProfileId: ProfileIdAnswerSchema.parse(profile.body).profile.id,
        tools: ["scene:world-set"],
      });
      await t.call("POST", "/api/scenes", { id: "asking", name: "Asking", agents: [{ instanceId: "asker", profileId: "asker" }] });
      await t.call("POST", "/api/scenes/asking/start");
      await t.call("POST", "/api/scenes/asking/messages", { to: "asker", text: "Remember my city." });

      const waiting = await until("the agent to ask", async () => {
        const s = stateOf((await t.call("GET", "/api/scenes/asking/state")).body);
        return s.agents[0]?.status === "waiting_user" ? s.agents[0] : undefined;
      });
      expect(waiting).toMatchObject({ pendingQuestion: "Which city?", inFlight: null });
      expect((await t.call("POST", "/api/scenes/asking/agents/asker/answer", { text: "Oslo" })).status).toBe(202);
      const done = await until("the answer to be used", async () => {
        const s = stateOf((await t.call("GET", "/api/scenes/asking/state")).body);
        return s.world.city === "Oslo" && settled(s) ? s : undefined;
      });
      expect(done.agents[0]?.pendingQuestion).toBeUndefined();
      const answered = llm.chatBodies()[1]!.messages as Array<{ role: string; content: string }>;
      expect(JSON.stringify(answered.at(-1))).toContain("Oslo");
      await t.call("POST", "/api/scenes/asking/stop");
    } finally {
      await llm.stop();
    }
  });
});
