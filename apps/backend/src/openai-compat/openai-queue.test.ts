import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import { TEST_TOKEN } from "../testing/http-call.ts";
import { ProfileIdAnswerSchema } from "../testing/answers.ts";
import { startQueueCluster, type QueueCluster } from "../queue/testing/queue-cluster.ts";

/**
 * Queue mode (real Redis, PostgreSQL, an API process and a `weft worker`): the agent's loop runs on the worker, and the
 * API process that holds the OpenAI client's request reads its answer from storage.
 */
describe("/v1/chat/completions in queue mode", () => {
  let cluster: QueueCluster;
  let llm: ScriptedLlmServer;
  let api: QueueCluster["api"];

  beforeAll(async () => {
    [cluster, llm] = await Promise.all([startQueueCluster({ name: "openai-queue", env: { WEFT_WORKER_LOCK_MS: "5000" } }), startScriptedLlmServer()]);
    api = cluster.api;
    const profile = await api.call("POST", "/api/llm-profiles", { name: "scripted", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0, timeoutMs: 60_000 });
    expect(profile.status).toBe(201);
    const agent = { id: "queued", name: "Queued", tools: [], deliberationWorkflowId: "agent-deliberation", llmProfileId: ProfileIdAnswerSchema.parse(profile.body).profile.id };
    expect((await api.call("POST", "/api/agents", agent)).status).toBe(201);
  });

  afterAll(async () => {
    await Promise.all([cluster?.stop(), llm?.stop()]);
  });

  it("answers from the worker's loop, streaming and not", { timeout: 120_000 }, async () => {
    const sdk = new OpenAI({ baseURL: `${api.url}/v1`, apiKey: TEST_TOKEN, maxRetries: 0, timeout: 60_000 });
    llm.enqueue({ kind: "text", chunks: ["Answered on a worker."] }, { kind: "text", chunks: ["Streamed from a worker."] });
    const answer = await sdk.chat.completions.create({ model: "queued", messages: [{ role: "user", content: "Hello" }] });
    expect(answer.choices[0]?.message.content).toBe("Answered on a worker.");
    const conversationId = answer.id.replace(/^chatcmpl-/, "");
    expect(cluster.workers[0].output()).toContain(`agent loop taken {"conversationId":"${conversationId}"`);

    const stream = await sdk.chat.completions.create({ model: "queued", messages: [{ role: "user", content: "Hello again" }], stream: true });
    let content = "";
    for await (const chunk of stream) content += chunk.choices[0]?.delta.content ?? "";
    expect(content).toBe("Streamed from a worker.");
  });
});
