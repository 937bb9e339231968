import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import { startRedis, type TestRedis } from "../testing/redis-server.ts";
import { spawnServer, type ChildServer } from "../testing/child-server.ts";
import { TEST_TOKEN } from "../testing/http-call.ts";
import { removeDir, tempDir } from "../testing/test-server.ts";
import { ProfileIdAnswerSchema } from "../testing/answers.ts";
import { spawnWorker, type ChildWorker } from "../queue/testing/child-worker.ts";
import { queueTestDatabase, type QueueTestDatabase } from "../queue/testing/queue-test-database.ts";

/**
 * Queue mode (real Redis, PostgreSQL, an API process and a `weft worker`): the agent's loop runs on the worker, and the
 * API process that holds the OpenAI client's request reads its answer from storage.
 */
describe("/v1/chat/completions in queue mode", () => {
  let redis: TestRedis;
  let database: QueueTestDatabase;
  let llm: ScriptedLlmServer;
  let dataDir: string;
  let api: ChildServer;
  let worker: ChildWorker;

  beforeAll(async () => {
    [redis, database, llm] = await Promise.all([startRedis(), queueTestDatabase(), startScriptedLlmServer()]);
    dataDir = tempDir("weft-openai-queue-");
    const env = { WEFT_REDIS_URL: redis.url, WEFT_DATA_DIR: dataDir, WEFT_DEMO_LLM: "off", WEFT_WORKER_LOCK_MS: "5000", ...database.env };
    [api, worker] = await Promise.all([spawnServer(dataDir, env), spawnWorker(env)]);
    const profile = await api.call("POST", "/api/llm-profiles", { name: "scripted", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0, timeoutMs: 60_000 });
    expect(profile.status).toBe(201);
    const agent = { id: "queued", name: "Queued", tools: [], deliberationWorkflowId: "agent-deliberation", llmProfileId: ProfileIdAnswerSchema.parse(profile.body).profile.id };
    expect((await api.call("POST", "/api/agents", agent)).status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    for (const p of [worker, api]) p?.proc.kill("SIGKILL");
    await Promise.all([worker, api].map((p) => p?.proc.exited));
    await Promise.all([redis?.stop(), database?.stop(), llm?.stop()]);
    if (dataDir) removeDir(dataDir);
  });

  it("answers from the worker's loop, streaming and not", { timeout: 120_000 }, async () => {
    const sdk = new OpenAI({ baseURL: `${api.url}/v1`, apiKey: TEST_TOKEN, maxRetries: 0, timeout: 60_000 });
    llm.enqueue({ kind: "text", chunks: ["Answered on a worker."] }, { kind: "text", chunks: ["Streamed from a worker."] });
    const answer = await sdk.chat.completions.create({ model: "queued", messages: [{ role: "user", content: "Hello" }] });
    expect(answer.choices[0]?.message.content).toBe("Answered on a worker.");
    const conversationId = answer.id.replace(/^chatcmpl-/, "");
    expect(worker.output()).toContain(`agent loop taken {"conversationId":"${conversationId}"`);

    const stream = await sdk.chat.completions.create({ model: "queued", messages: [{ role: "user", content: "Hello again" }], stream: true });
    let content = "";
    for await (const chunk of stream) content += chunk.choices[0]?.delta.content ?? "";
    expect(content).toBe("Streamed from a worker.");
  });
});
