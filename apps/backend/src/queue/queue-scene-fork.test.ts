import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startScriptedLlmServer, type ScriptedLlmServer, type ScriptedTurn } from "@weft/agent-runtime";
import { SceneStateViewSchema, SceneTimelineSchema } from "@weft/types";
import { ProfileIdAnswerSchema } from "../testing/answers.ts";
import { waitFor } from "../testing/test-server.ts";
import { startQueueCluster, type QueueCluster } from "./testing/queue-cluster.ts";

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
const say = (text: string): ScriptedTurn => ({ kind: "text", chunks: [text] });
const setWorldText = (path: string, value: string) => `<ACTION>\n  <scene_world_set>\n    <path>${path}</path>\n    <value>${value}</value>\n  </scene_world_set>\n</ACTION>`;
const setWorld = (path: string, value: string): ScriptedTurn => say(setWorldText(path, value));
const Forked = z.object({ sceneId: z.string() });

/** Issue 33 item 3 in the queue mode: the API writes the fork's state and log, a `weft worker` continues it. */
describe("a scene fork in queue mode", () => {
  let cluster: QueueCluster;
  let llm: ScriptedLlmServer;

  beforeAll(async () => {
    llm = await startScriptedLlmServer();
    cluster = await startQueueCluster({ name: "queue-scene-fork", env: { WEFT_EXAMPLES_DIR: EXAMPLES, WEFT_WORKER_LOCK_MS: "5000" } });
  });
  afterAll(async () => {
    await cluster?.stop();
    await llm?.stop();
  });

  const settled = (sceneId: string, steps: number) =>
    waitFor(
      async () => {
        const state = SceneStateViewSchema.parse((await cluster.api.call("GET", `/api/scenes/${sceneId}/state`)).body);
        const timeline = SceneTimelineSchema.parse((await cluster.api.call("GET", `/api/scenes/${sceneId}/timeline`)).body);
        const idle = state.agents.every((a) => a.status === "idle" && a.queue.length === 0 && a.inFlight === null);
        return idle && timeline.steps.length >= steps && timeline.entries.some((e) => e.kind === "deliberation.finished") ? { state, timeline } : undefined;
      },
      120_000,
      `scene ${sceneId} to settle`,
    );

  it("runs the fork on a worker from the fork point: no model call for steps 1-2, the rest live", async () => {
    const { api } = cluster;
    const profile = await api.call("POST", "/api/llm-profiles", { name: "scripted", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0, timeoutMs: 60_000 });
    expect(profile.status).toBe(201);
    const agent = {
      id: "counter",
      name: "Counter",
      deliberationWorkflowId: "agent-deliberation",
      llmProfileId: ProfileIdAnswerSchema.parse(profile.body).profile.id,
      tools: ["scene:world-set"],
      maxSteps: 6,
    };
    expect((await api.call("POST", "/api/agents", agent)).status).toBe(201);
    expect((await api.call("POST", "/api/scenes", { id: "tally", name: "Tally", agents: [{ instanceId: "ann", profileId: "counter" }], initialWorldState: { n: 0 } })).status).toBe(201);
    llm.enqueue(setWorld("n", "1"), setWorld("n", "2"), setWorld("n", "3"), say("Counted."));
    expect((await api.call("POST", "/api/scenes/tally/start")).status).toBe(200);
    expect((await api.call("POST", "/api/scenes/tally/messages", { to: "ann", text: "Count." })).status).toBe(202);
    const original = await settled("tally", 4);
    const first = original.timeline.entries.find((e) => e.kind === "llm.output");
    const triggerId = first?.kind === "llm.output" ? first.triggerId : "";

    llm.enqueue(say("Forked."));
    const forked = await api.call("POST", "/api/scenes/tally/fork", { instanceId: "ann", triggerId, step: 2, llmOutput: setWorldText("n", "20") });
    expect(forked.status, JSON.stringify(forked.body)).toBe(202);
    const forkId = Forked.parse(forked.body).sceneId;
    const fork = await settled(forkId, 3);
    expect(fork.state.world).toEqual({ n: 20 });
    expect(llm.chatBodies()).toHaveLength(5);
    // The fork ran on the worker (the API process runs no scene).
    expect(cluster.workers[0]!.output()).toContain(`scene taken {"sceneId":"${forkId}","mode":"restore"`);
  });
});
