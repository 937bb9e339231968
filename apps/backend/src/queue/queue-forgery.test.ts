import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { z } from "zod";
import { startScriptedLlmServer, type ScriptedLlmServer, type ScriptedTurn } from "@weft/agent-runtime";
import { silentLogger } from "@weft/types";
import type { ChildServer } from "../testing/child-server.ts";
import { TEST_TOKEN } from "../testing/http-call.ts";
import { TestWsClient } from "../testing/ws-client.ts";
import { removeDir, RunAnswerSchema, slowWorkflow, tempDir, waitFor } from "../testing/test-server.ts";
import { ConversationAnswerSchema, ProfileIdAnswerSchema, SentMessageSchema, StartedRunSchema } from "../testing/answers.ts";
import { parseExposition, sampleValue } from "../ops/testing/exposition.ts";
import { workerMetricsUrl, type ChildWorker } from "./testing/child-worker.ts";
import { startQueueCluster, type QueueCluster } from "./testing/queue-cluster.ts";
import { AGENT_JOB, AGENT_QUEUE, agentBusyKey, bullConnection, CANCEL_CHANNEL, cancelKey, EVENTS_CHANNEL, openRedis, QUEUE_PREFIX } from "./queue-names.ts";
import { QueueSeal, sealJob, type QueueRejectReason } from "./queue-seal.ts";

/** An `<ACTION>` calling fs.write, as the model writes it; `delayMs` holds the answer back (the loop's job stays active meanwhile). */
const write = (path: string, content: string, delayMs?: number): ScriptedTurn => ({
  kind: "text",
  chunks: [`Writing.\n<ACTION>\n  <fs_write>\n    <path>${path}</path>\n    <content>${content}</content>\n  </fs_write>\n</ACTION>`],
  ...(delayMs !== undefined ? { delayMs } : {}),
});
const say = (text: string): ScriptedTurn => ({ kind: "text", chunks: [text] });
const RunList = z.object({ runs: z.array(z.object({ id: z.string() })) });
const AuditRecord = z.object({ userId: z.string().optional() });

/**
 * Issue 31, attack 5: a local process that reaches Redis (no password, no secret) and tries to use it
 * as a door — real Redis, PostgreSQL (or WEFT_QUEUE_TEST_DB=sqlite), an API and a `weft worker`, the
 * attacker with its own Redis connections. Each attempt checks the effect (a file, the audit log,
 * runs, the LLM asked, the run's end, a /ws client) and that the rejection is counted in /metrics.
 */
describe("a process with access to Redis but not to the installation's secret", () => {
  let cluster: QueueCluster;
  let dataDir: string;
  let workerProject: string;
  let api: ChildServer;
  let worker: ChildWorker;
  let workerMetrics: string;
  let viewerId: string;
  let attacker: Redis;
  let listener: Redis;
  let agentsQueue: Queue;
  const llms: ScriptedLlmServer[] = [];
  /** Stream ids the attacker read from `weft:events`. */
  const learned = new Set<string>();

  /** An agent allowed to write files, with a scripted model of its own (turns a refused job leaves unused stay its own). */
  const scribe = async (id: string) => {
    const llm = await startScriptedLlmServer();
    llms.push(llm);
    const profile = await api.call("POST", "/api/llm-profiles", { name: `scripted-${id}`, baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0, timeoutMs: 60_000 });
    expect(profile.status).toBe(201);
    const agent = {
      id,
      name: id,
      deliberationWorkflowId: "agent-deliberation",
      llmProfileId: ProfileIdAnswerSchema.parse(profile.body).profile.id,
      tools: ["fs:write"],
      maxSteps: 3,
      permissions: [{ action: "allow", tool: "fs.write" }],
    };
    expect((await api.call("POST", "/api/agents", agent)).status).toBe(201);
    return llm;
  };
  const send = async (agent: string, message: string) => {
    const sent = await api.call("POST", `/api/agents/${agent}/messages`, { message });
    expect(sent.status).toBe(202);
    return SentMessageSchema.parse(sent.body).conversationId;
  };
  const messagesIn = async (conversationId: string) => ConversationAnswerSchema.parse((await api.call("GET", `/api/conversations/${conversationId}`)).body).messages.length;
  const idle = (conversationId: string) => waitFor(async () => ((await attacker.get(agentBusyKey(conversationId))) === null ? true : undefined), 60_000, "the conversation's loop to end");
  const rejected = async (url: string, reason: QueueRejectReason) => {
    const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expect(res.status).toBe(200);
    return sampleValue(parseExposition(await res.text()), "weft_queue_rejected_total", { reason }) ?? 0;
  };
  const runCount = async () => RunList.parse((await api.call("GET", "/api/runs?limit=500")).body).runs.length;
  const auditUsers = () => {
    const file = join(dataDir, "audit", "tools.jsonl");
    if (!existsSync(file)) return [];
    return readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((line) => AuditRecord.parse(JSON.parse(line)).userId);
  };
  /** Adds `data` as an agent message job the way BullMQ's own clients do, and waits until a worker is done with it. */
  const inject = async (jobId: string, data: object) => {
    await agentsQueue.add(AGENT_JOB, data, { jobId });
    return waitFor(
      async () => {
        const state = await agentsQueue.getJobState(jobId);
        return state === "completed" || state === "failed" ? state : undefined;
      },
      30_000,
      `job ${jobId} to be taken`,
    );
  };

  beforeAll(async () => {
    workerProject = tempDir("weft-queue-forgery-worker-");
    cluster = await startQueueCluster({
      name: "queue-forgery",
      projectDir: true,
      workerArgs: ["--concurrency", "2"],
      env: { WEFT_AUTH_TOKEN: TEST_TOKEN },
      workerEnv: { WEFT_PROJECT_DIR: workerProject, WEFT_WORKER_METRICS_PORT: "0" },
    });
    ({ dataDir, api } = cluster);
    worker = cluster.workers[0] as ChildWorker;
    workerMetrics = await workerMetricsUrl(worker);
    const viewer = await api.call("POST", "/api/users", { username: "vic", role: "viewer", password: "pw-vic-long-enough" });
    expect(viewer.status).toBe(201);
    viewerId = z.object({ user: z.object({ id: z.string() }) }).parse(viewer.body).user.id;

    attacker = await openRedis(cluster.redis.url, "attacker", silentLogger);
    listener = await openRedis(cluster.redis.url, "attacker-listener", silentLogger);
    // What the announcements say, sealed or not: a seal authenticates, it does not hide.
    listener.on("message", (_channel: string, text: string) => {
      const outer = z.object({ body: z.string() }).safeParse(JSON.parse(text));
      const announcement = z.object({ streams: z.array(z.tuple([z.string(), z.number(), z.number()])) }).parse(outer.success ? JSON.parse(outer.data.body) : JSON.parse(text));
      for (const [streamId] of announcement.streams) learned.add(streamId);
    });
    await listener.subscribe(EVENTS_CHANNEL);
    agentsQueue = new Queue(AGENT_QUEUE, { connection: bullConnection(cluster.redis.url), prefix: QUEUE_PREFIX });
  });

  afterAll(async () => {
    await agentsQueue?.close();
    attacker?.disconnect();
    listener?.disconnect();
    await Promise.all([cluster?.stop(), ...llms.map((l) => l.stop())]);
    if (workerProject) removeDir(workerProject);
  });

  it("learns a conversation from weft:events and queues a message naming a viewer: no file, no audit record, no run, the model never asked; counted", async () => {
    const llm = await scribe("scribe-a");
    llm.enqueue(write("@project/genuine-a.txt", "by the owner"), say("Done."));
    const conversationId = await send("scribe-a", "Write genuine-a.txt");
    await idle(conversationId);
    expect(readFileSync(join(workerProject, "genuine-a.txt"), "utf8")).toBe("by the owner");
    await waitFor(async () => (learned.has(conversationId) ? true : undefined), 60_000, "the attacker to learn the conversation's id");

    llm.enqueue(write("@project/forged.txt", "as the viewer"), say("Done."));
    const [before, runsBefore, asked] = [await rejected(workerMetrics, "unsigned"), await runCount(), llm.requests.length];
    // Everything a genuine job holds, but no seal: what the attacker can write.
    const data = { agentId: "scribe-a", conversationId, message: "Write forged.txt", createdBy: viewerId, messagesBefore: await messagesIn(conversationId) };
    const state = await inject(`${Date.now()}-forged`, data);

    expect(existsSync(join(workerProject, "forged.txt"))).toBe(false);
    expect(auditUsers()).not.toContain(viewerId);
    expect(await runCount()).toBe(runsBefore);
    expect(llm.requests.length).toBe(asked);
    expect(state).toBe("failed");
    expect(await rejected(workerMetrics, "unsigned")).toBe(before + 1);
  });

  it("drops a job re-signed with another key: nothing runs; counted as a bad signature", async () => {
    const llm = await scribe("scribe-b");
    llm.enqueue(write("@project/genuine-b.txt", "by the owner"), say("Done."));
    const conversationId = await send("scribe-b", "Write genuine-b.txt");
    await idle(conversationId);

    llm.enqueue(write("@project/tampered.txt", "as the viewer"), say("Done."));
    const [before, asked] = [await rejected(workerMetrics, "bad_signature"), llm.requests.length];
    const jobId = `${Date.now()}-tampered`;
    const data = { agentId: "scribe-b", conversationId, message: "Write tampered.txt", createdBy: viewerId, messagesBefore: await messagesIn(conversationId) };
    const wrongKey = new QueueSeal(randomBytes(32), silentLogger);
    const state = await inject(jobId, sealJob(wrongKey, AGENT_QUEUE, jobId, data));

    expect(existsSync(join(workerProject, "tampered.txt"))).toBe(false);
    expect(auditUsers()).not.toContain(viewerId);
    expect(llm.requests.length).toBe(asked);
    expect(state).toBe("failed");
    expect(await rejected(workerMetrics, "bad_signature")).toBe(before + 1);
  });

  it("drops a genuine job copied from Redis and added again after it ran: its file is not written twice; counted as replayed", async () => {
    const llm = await scribe("scribe-c");
    // The model takes its time, so the job is still in Redis while the attacker copies it.
    llm.enqueue(write("@project/once.txt", "once", 2000), say("Done."));
    const conversationId = await send("scribe-c", "Write once.txt");
    const jobId = await waitFor(async () => (await attacker.get(agentBusyKey(conversationId))) ?? undefined, 60_000, "the busy marker");
    const captured = await waitFor(async () => (await attacker.hget(`${QUEUE_PREFIX}:${AGENT_QUEUE}:${jobId}`, "data")) ?? undefined, 60_000, "the job's data");
    await idle(conversationId);
    const once = join(workerProject, "once.txt");
    expect(readFileSync(once, "utf8")).toBe("once");
    rmSync(once);

    llm.enqueue(write("@project/once.txt", "twice"), say("Done."));
    const [before, asked] = [await rejected(workerMetrics, "replayed"), llm.requests.length];
    const state = await inject(jobId, z.record(z.string(), z.unknown()).parse(JSON.parse(captured)));

    expect(existsSync(once)).toBe(false);
    expect(llm.requests.length).toBe(asked);
    expect(state).toBe("failed");
    expect(await rejected(workerMetrics, "replayed")).toBe(before + 1);
  });

  it("ignores a forged cancel of a running run (channel and key): the run completes; counted", async () => {
    expect((await api.call("POST", "/api/workflows", { workflow: slowWorkflow("slow", 2500) })).status).toBe(201);
    const { runId } = StartedRunSchema.parse((await api.call("POST", "/api/workflows/slow/runs", { inputs: {} })).body);
    await waitFor(async () => (RunAnswerSchema.parse((await api.call("GET", `/api/runs/${runId}`)).body).run.status === "running" ? true : undefined), 60_000, "the run to start");
    const before = await rejected(workerMetrics, "unsigned");
    await attacker.set(cancelKey(runId), "1");
    expect(await attacker.publish(CANCEL_CHANNEL, runId)).toBeGreaterThan(0);

    const run = await waitFor(
      async () => {
        const r = RunAnswerSchema.parse((await api.call("GET", `/api/runs/${runId}`)).body).run;
        return r.status === "running" ? undefined : r;
      },
      30_000,
      "the run to end",
    );
    expect(run.status).toBe("completed");
    expect(await rejected(workerMetrics, "unsigned")).toBe(before + 1);
  });

  it("ignores forged announcements on weft:events: no /ws client receives anything from them; counted", async () => {
    const llm = await scribe("scribe-d");
    llm.enqueue(say("Hello."));
    const conversationId = await send("scribe-d", "Hi");
    await idle(conversationId);
    const ws = await TestWsClient.connect(api.url);
    try {
      ws.subscribe(conversationId);
      const history = await ws.waitFor((c) => (c.events(conversationId).some((e) => e.type === "agent.finished") ? c.messages.length : undefined), 60_000, "the conversation's history");
      const [unsigned, badSignature] = [await rejected(api.url, "unsigned"), await rejected(api.url, "bad_signature")];
      const announcement = { origin: "attacker", streams: [[conversationId, 0, 1_000_000]] };
      await attacker.publish(EVENTS_CHANNEL, JSON.stringify(announcement));
      await attacker.publish(EVENTS_CHANNEL, new QueueSeal(randomBytes(32), silentLogger).wrap(EVENTS_CHANNEL, announcement));
      await waitFor(async () => ((await rejected(api.url, "bad_signature")) === badSignature + 1 ? true : undefined), 60_000, "the API to drop both announcements");
      expect(await rejected(api.url, "unsigned")).toBe(unsigned + 1);
      expect(ws.messages.slice(history).filter((m) => z.object({ type: z.literal("event") }).safeParse(m).success)).toEqual([]);
    } finally {
      ws.close();
    }
  });
});
