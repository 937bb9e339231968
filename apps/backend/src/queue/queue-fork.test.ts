import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import { RunAnswerSchema, waitFor, type RunAnswer } from "../testing/test-server.ts";
import { ProfileIdAnswerSchema, StartedRunSchema } from "../testing/answers.ts";
import { startQueueCluster, type QueueCluster } from "./testing/queue-cluster.ts";

const ANSWER = `Recorded once: ${"x".repeat(400)}`;

/**
 * A fork in queue mode: the API records it, a `weft worker` process executes it, and what the fork takes from the
 * forked run comes from the shared PostgreSQL database (the worker never saw that run in memory).
 */
describe("forking a run in queue mode", () => {
  let cluster: QueueCluster;
  let llm: ScriptedLlmServer;
  let api: QueueCluster["api"];

  const ended = (runId: string): Promise<RunAnswer> =>
    waitFor(
      async () => {
        const answer = RunAnswerSchema.safeParse((await api.call("GET", `/api/runs/${runId}`)).body);
        return answer.success && ["completed", "failed", "cancelled", "interrupted"].includes(answer.data.run.status) ? answer.data : undefined;
      },
      120_000,
      `run ${runId} to end`,
    );

  beforeAll(async () => {
    cluster = await startQueueCluster({ name: "queue-fork", workerArgs: ["--concurrency", "1"], env: { WEFT_WORKER_LOCK_MS: "5000" } });
    api = cluster.api;
    llm = await startScriptedLlmServer({ turns: [{ kind: "text", chunks: [ANSWER] }] });
  });

  afterAll(async () => {
    await llm?.stop();
    await cluster?.stop();
  });

  it("a worker runs the fork at the last node from the recorded outputs: no new LLM request", async () => {
    const profile = await api.call("POST", "/api/llm-profiles", { name: "scripted", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0 });
    expect(profile.status).toBe(201);
    const profileId = ProfileIdAnswerSchema.parse(profile.body).profile.id;
    const workflow = {
      id: "ask",
      name: "Ask",
      nodes: [
        { id: "topic", type: "core:workflow-input", config: { name: "topic", portType: "string", required: true } },
        { id: "llm", type: "llm:chat", config: { profileId } },
        { id: "fill", type: "core:text-template", config: { template: "Summary: {{0}}" } },
        { id: "out", type: "core:workflow-output", config: { name: "text", portType: "string" } },
      ],
      edges: [
        { id: "e1", source: "topic", sourceHandle: "value", target: "llm", targetHandle: "prompt" },
        { id: "e2", source: "llm", sourceHandle: "text", target: "fill", targetHandle: "values" },
        { id: "e3", source: "fill", sourceHandle: "text", target: "out", targetHandle: "value" },
      ],
    };
    expect((await api.call("POST", "/api/workflows", { workflow })).status).toBe(201);
    const started = await api.call("POST", "/api/workflows/ask/runs", { inputs: { topic: "queues" } });
    const original = await ended(StartedRunSchema.parse(started.body).runId);
    expect(original.run.status).toBe("completed");
    expect(llm.chatBodies()).toHaveLength(1);

    // A fresh worker process: nothing of the original run is in its memory.
    await cluster.restartWorker(cluster.workers[0]);

    const forked = await api.call("POST", `/api/runs/${original.run.id}/fork`, { at: "fill", settings: { template: "Queued fork: {{0}}" } });
    expect(forked.status, JSON.stringify(forked.body)).toBe(202);
    const fork = await ended(StartedRunSchema.parse(forked.body).runId);
    expect(fork.run.status).toBe("completed");
    expect(fork.run.outputs).toEqual({ text: `Queued fork: ${ANSWER}` });
    expect(fork.run.forkOf).toEqual({ runId: original.run.id, nodeId: "fill" });
    expect(fork.observations.find((o) => o.nodeId === "llm")).toMatchObject({ cached: true, outputs: { text: ANSWER } });
    expect(llm.chatBodies()).toHaveLength(1);
  });
});
