import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Redis } from "ioredis";
import { z } from "zod";
import { startScriptedLlmServer, type ScriptedLlmServer, type ScriptedTurn } from "@weft/agent-runtime";
import type { RunEvent } from "@weft/types";
import type { ChildServer } from "../testing/child-server.ts";
import { TestWsClient, contiguousFrom } from "../testing/ws-client.ts";
import { RunAnswerSchema, waitFor } from "../testing/test-server.ts";
import { ConversationAnswerSchema, ProfileIdAnswerSchema, SentMessageSchema, WorkflowAnswerSchema } from "../testing/answers.ts";
import { ErrorBodySchema } from "../testing/error-body.ts";
import type { ChildWorker } from "./testing/child-worker.ts";
import { startQueueCluster, type QueueCluster } from "./testing/queue-cluster.ts";
import { agentBusyKey } from "./queue-names.ts";

/** An `<ACTION>` calling fs.write, as the model writes it. */
const write = (path: string, content: string): ScriptedTurn => ({
  kind: "text",
  chunks: [`Writing.\n<ACTION>\n  <fs_write>\n    <path>${path}</path>\n    <content>${content}</content>\n  </fs_write>\n</ACTION>`],
});
const ask = (question: string): ScriptedTurn => ({ kind: "text", chunks: [`<ACTION>\n  <ask_user>\n    <question>${question}</question>\n  </ask_user>\n</ACTION>`] });
const say = (text: string, delayMs?: number): ScriptedTurn => ({ kind: "text", chunks: [text], ...(delayMs !== undefined ? { delayMs } : {}) });
const Conversation = ConversationAnswerSchema.extend({
  agent: z
    .object({
      status: z.string(),
      running: z.boolean(),
      pendingQuestion: z.string().optional(),
      reason: z.string().optional(),
      pendingPermissions: z.array(z.object({ requestId: z.string(), tool: z.string() })),
    })
    .optional(),
});
/** GET /api/runs/:id of an agent's run (its workflow snapshot is not needed here). */
const RunAnswer = RunAnswerSchema.partial({ workflow: true });
const RunList = z.object({ runs: z.array(z.object({ id: z.string(), status: z.string() })) });
const AgentFinished = z.object({ type: z.literal("agent.finished"), status: z.string(), text: z.string().optional() });

/**
 * Agents in queue mode: real Redis, PostgreSQL, two API processes and `weft worker` processes. The
 * API processes and the worker have different project folders, so a file an agent's tool wrote shows
 * where its loop ran. The scripted LLM answers whichever process calls it.
 */
describe("agents on queue-mode workers", () => {
  let cluster: QueueCluster;
  let llm: ScriptedLlmServer;
  let apiProject: string;
  let workerProject: string;
  let apiA: ChildServer;
  let apiB: ChildServer;
  /** The live workers (the cluster's: killed ones leave it). */
  let workers: ChildWorker[];

  const send = async (api: ChildServer, agent: string, message: string, conversationId?: string) => {
    // A follow-up is sent as soon as `settled` sees the last loop finished, as a user would: the API waits for that
    // loop's worker to let go of the conversation's busy marker rather than refusing the message.
    const sent = await api.call("POST", `/api/agents/${agent}/messages`, { message, ...(conversationId ? { conversationId } : {}) });
    expect(sent.status).toBe(202);
    return SentMessageSchema.parse(sent.body).conversationId;
  };
  const read = async (api: ChildServer, conversationId: string) => Conversation.parse((await api.call("GET", `/api/conversations/${conversationId}`)).body);
  /** The conversation once no loop runs in it and it has `steps` steps, or its agent has `status`. */
  const settled = (api: ChildServer, conversationId: string, until: number | string, timeoutMs = 60_000) =>
    waitFor(
      async () => {
        const answer = await read(api, conversationId);
        if (!answer.agent || answer.agent.running) return undefined;
        return (typeof until === "number" ? answer.steps.length >= until : answer.agent.status === until) ? answer : undefined;
      },
      timeoutMs,
      `conversation ${conversationId} to settle`,
    );
  const question = (api: ChildServer, conversationId: string) => waitFor(async () => (await read(api, conversationId)).agent?.pendingPermissions[0], 60_000, "a permission question");
  const finished = (events: RunEvent[]) => events.flatMap((e) => (e.type === "agent.finished" ? [AgentFinished.parse(e)] : []));

  beforeAll(async () => {
    llm = await startScriptedLlmServer();
    cluster = await startQueueCluster({
      name: "agent-queue",
      apiProcesses: 2,
      projectDir: true,
      workerProjectDir: true,
      // A 5 s job lock: a killed worker's job is found stalled within seconds, and a busy machine still renews it in time
      // (at 1 s, a loop was cancelled mid-action at load average 24).
      env: { WEFT_WORKER_LOCK_MS: "5000", WEFT_SHUTDOWN_GRACE_MS: "10000" },
    });
    if (!cluster.projectDir || !cluster.workerProjectDir) throw new Error("the cluster came without its project folders");
    [apiProject, workerProject] = [cluster.projectDir, cluster.workerProjectDir];
    [apiA, apiB] = cluster.apis as [ChildServer, ChildServer];
    workers = cluster.workers;
    const profile = await apiA.call("POST", "/api/llm-profiles", { name: "scripted", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0, timeoutMs: 60_000 });
    expect(profile.status).toBe(201);
    const agent = { deliberationWorkflowId: "agent-deliberation", llmProfileId: ProfileIdAnswerSchema.parse(profile.body).profile.id, tools: ["fs:write"], maxSteps: 4 };
    expect((await apiA.call("POST", "/api/agents", { id: "trusted", name: "Trusted", ...agent, permissions: [{ action: "allow", tool: "fs.write" }] })).status).toBe(201);
    expect((await apiA.call("POST", "/api/agents", { id: "careful", name: "Careful", ...agent, permissions: [{ action: "ask", tool: "fs.write" }] })).status).toBe(201);
  });

  afterAll(async () => {
    await Promise.all([cluster?.stop(), llm?.stop()]);
  });

  it("runs a message sent to API A on the worker, its events reach API B's /ws, and the answer to ask_user continues it from storage", async () => {
    const wsB = await TestWsClient.connect(apiB.url);
    try {
      llm.enqueue(write("@project/one.txt", "written on the worker"), ask("Which name?"));
      const id = await send(apiA, "trusted", "Write one.txt, then ask me for a name");
      wsB.subscribe(id);
      const first = await wsB.waitFor((c) => (finished(c.events(id)).length === 1 ? c.events(id) : undefined), 60_000, "the first agent.finished on API B");
      expect(finished(first)[0]).toMatchObject({ status: "waiting_user", text: "Which name?" });
      // The tool ran in the worker's project folder, not the API's.
      expect(readFileSync(join(workerProject, "one.txt"), "utf8")).toBe("written on the worker");
      expect(existsSync(join(apiProject, "one.txt"))).toBe(false);
      expect(workers[0].output()).toContain(`agent loop taken {"conversationId":"${id}"`);
      const waiting = await settled(apiB, id, 2);
      expect(waiting.agent).toMatchObject({ status: "waiting_user", running: false, pendingQuestion: "Which name?" });

      // The answer is a new job; the worker keeps no agent between loops, so the question comes from the stored session.
      llm.enqueue(say("Thank you, Ada."));
      await send(apiB, "trusted", "Ada", id);
      const events = await wsB.waitFor((c) => (finished(c.events(id)).length === 2 ? c.events(id) : undefined), 60_000, "the second agent.finished on API B");
      expect(finished(events)[1]).toMatchObject({ status: "completed", text: "Thank you, Ada." });
      expect(contiguousFrom(events, -1)).toBe(true);
      const done = await settled(apiA, id, 3);
      expect(done.steps.map((s) => s.step)).toEqual([1, 2, 3]);
      expect(done.messages.some((m) => m.content?.includes("`ask_user` executed successfully") && m.content.includes('{"answer":"Ada"}'))).toBe(true);
      expect(done.messages.some((m) => m.role === "user" && m.content === "Ada")).toBe(false);
    } finally {
      wsB.close();
    }
  });

  it("a permission question asked on the worker is answered through API B: allowed, the file is written; refused, it is not", async () => {
    llm.enqueue(write("@project/asked.txt", "approved"), say("Written."));
    const allowed = await send(apiA, "careful", "Write approved to asked.txt");
    const asked = await question(apiB, allowed);
    expect(asked.tool).toBe("fs.write");
    expect(existsSync(join(workerProject, "asked.txt"))).toBe(false);
    expect((await apiB.call("POST", `/api/conversations/${allowed}/permissions/${asked.requestId}`, { answer: "once" })).status).toBe(200);
    const done = await settled(apiA, allowed, 2);
    expect(done.steps[0]?.actions[0]).toMatchObject({ ok: true, permissions: [{ tool: "fs.write", answer: "once" }] });
    expect(readFileSync(join(workerProject, "asked.txt"), "utf8")).toBe("approved");

    llm.enqueue(write("@project/refused.txt", "no"), say("Not written."));
    const refused = await send(apiA, "careful", "Write no to refused.txt");
    const second = await question(apiB, refused);
    expect((await apiB.call("POST", `/api/conversations/${refused}/permissions/${second.requestId}`, { answer: "reject" })).status).toBe(200);
    const after = await settled(apiA, refused, 2);
    expect(after.steps[0]?.actions[0]).toMatchObject({ ok: false, permissions: [{ tool: "fs.write", answer: "reject" }] });
    expect(existsSync(join(workerProject, "refused.txt"))).toBe(false);
    // An unknown question is refused by the holder (while one waits) or from storage (after): 404 either way.
    expect((await apiB.call("POST", `/api/conversations/${refused}/permissions/nope`, { answer: "once" })).status).toBe(404);
  });

  it("refuses a second message through another API while the loop runs (409), and a cancel through it stops the loop on the worker", async () => {
    llm.enqueue(say("I am thinking", 15_000));
    const requests = llm.requests.length;
    const id = await send(apiA, "trusted", "Take your time");
    await waitFor(async () => (llm.requests.length > requests ? true : undefined), 60_000, "the worker to call the LLM");
    const second = await apiB.call("POST", "/api/agents/trusted/messages", { message: "Are you there?", conversationId: id });
    expect(second.status).toBe(409);
    expect(ErrorBodySchema.parse(second.body).error.code).toBe("CONFLICT");
    expect((await apiB.call("POST", `/api/conversations/${id}/cancel`)).body).toEqual({ ok: true });
    const done = await settled(apiA, id, 0, 60_000);
    expect(done.agent?.status).toBe("cancelled");
    expect(llm.requests.at(-1)?.clientClosedEarly).toBe(true);
    // The busy marker is gone: the next message is taken.
    llm.enqueue(say("Here again."));
    await send(apiB, "trusted", "Now?", id);
    expect((await settled(apiA, id, "completed")).messages.at(-1)?.content).toContain("Here again.");
  });

  it("takes a message sent while a finished loop's worker still holds the busy marker once the worker lets go of it", async () => {
    llm.enqueue(say("First."));
    const id = await send(apiA, "trusted", "Hello");
    await settled(apiA, id, "completed");
    // What a worker leaves for a moment after its loop's last write: the marker of a job that is no longer queued.
    const redis = new Redis(cluster.redis.url);
    try {
      await redis.set(agentBusyKey(id), `${Date.now()}-finished-job`);
      llm.enqueue(say("Second."));
      const sending = apiB.call("POST", "/api/agents/trusted/messages", { message: "Again", conversationId: id });
      await Bun.sleep(500);
      await redis.del(agentBusyKey(id));
      expect((await sending).status).toBe(202);
    } finally {
      redis.disconnect();
    }
    expect((await settled(apiA, id, "completed")).messages.at(-1)?.content).toContain("Second.");
  });

  it("refuses bad messages in the API, as the embedded mode does, without queueing them", async () => {
    // A profile whose deliberation workflow was deleted after it was saved cannot run.
    const { workflow } = WorkflowAnswerSchema.parse((await apiA.call("GET", "/api/workflows/agent-deliberation")).body);
    expect((await apiA.call("POST", "/api/workflows", { workflow: { ...workflow, id: "short-lived" } })).status).toBe(201);
    const base = z.object({ agent: z.looseObject({}) }).parse((await apiA.call("GET", "/api/agents/trusted")).body).agent;
    expect((await apiA.call("POST", "/api/agents", { ...base, id: "orphan", revision: undefined, deliberationWorkflowId: "short-lived" })).status).toBe(201);
    expect((await apiA.call("DELETE", "/api/workflows/short-lived")).status).toBeLessThan(300);
    llm.enqueue(say("Hello."));
    const other = await send(apiA, "careful", "hello");
    await settled(apiA, other, 0);
    const cases: [string, unknown, number, string][] = [
      ["/api/agents/nobody/messages", { message: "hi" }, 404, "NOT_FOUND"],
      ["/api/agents/trusted/messages", { message: "hi", conversationId: "nope" }, 404, "NOT_FOUND"],
      ["/api/agents/trusted/messages", { message: "hi", conversationId: other }, 400, "VALIDATION_FAILED"],
      ["/api/agents/orphan/messages", { message: "hi" }, 400, "VALIDATION_FAILED"],
    ];
    for (const [path, body, status, code] of cases) {
      const res = await apiB.call("POST", path, body);
      expect({ path, status: res.status, code: ErrorBodySchema.safeParse(res.body).data?.error.code }).toEqual({ path, status, code });
    }
    expect(workers.flatMap((w) => [...w.output().matchAll(/agent loop did not run/g)])).toEqual([]);
    // Forking a conversation is refused in the queue mode (its loop would need a worker), storing nothing.
    const forked = await apiB.call("POST", `/api/conversations/${other}/fork`, { step: 1 });
    expect({ status: forked.status, details: ErrorBodySchema.safeParse(forked.body).data?.error.details }).toEqual({ status: 409, details: { reason: "QUEUE_MODE" } });
    expect(z.object({ forks: z.array(z.unknown()) }).parse((await apiA.call("GET", `/api/conversations/${other}`)).body).forks).toEqual([]);
  });

  it("a worker killed mid-loop: another worker closes the loop failed without running it again, and the conversation takes the next message", async () => {
    const victim = workers[0];
    const survivor = await cluster.startWorker();
    llm.enqueue(say("never delivered", 30_000));
    const requests = llm.requests.length;
    const id = await send(apiA, "trusted", "Think long");
    await waitFor(async () => (llm.requests.length > requests ? true : undefined), 60_000, "a worker to call the LLM");
    const holder = workers.find((w) => w.output().includes(`agent loop taken {"conversationId":"${id}"`));
    if (!holder) throw new Error("no worker announced the loop");
    const other = holder === victim ? survivor : victim;
    // The loop's deliberation run, waiting for the model on the worker about to be killed.
    const running = await waitFor(
      async () => RunList.parse((await apiA.call("GET", "/api/runs?workflowId=agent-deliberation&status=running")).body).runs[0],
      60_000,
      "the loop's deliberation run to be stored",
    );
    await cluster.kill(holder, "SIGKILL");
    const closed = await settled(apiB, id, 0, 60_000);
    expect(closed.agent).toMatchObject({ status: "failed", running: false });
    expect(closed.agent?.reason).toMatch(/stopped before it finished/);
    // Not run again: the LLM got no second request for it.
    expect(llm.requests.length).toBe(requests + 1);
    expect(other.output()).toContain(`closing it without running it again {"conversationId":"${id}"`);
    // Its run is closed too, not left running.
    const run = await waitFor(
      async () => {
        const { run } = RunAnswer.parse((await apiA.call("GET", `/api/runs/${running.id}`)).body);
        return run.status === "running" ? undefined : run;
      },
      15_000,
      "the killed loop's run to be closed",
    );
    expect(run).toMatchObject({ status: "interrupted", error: { code: "INTERRUPTED" } });
    llm.enqueue(say("Back."));
    await send(apiB, "trusted", "Again", id);
    expect((await settled(apiA, id, "completed")).messages.at(-1)?.content).toContain("Back.");
  });

  it("SIGTERM: a loop that ends within the grace period completes; one that does not is cancelled; the worker exits either way", async () => {
    const patient = workers[0];
    llm.enqueue(say("Done in time.", 1000));
    const finishes = await send(apiA, "trusted", "Quick one");
    await waitFor(async () => (patient.output().includes(`agent loop taken {"conversationId":"${finishes}"`) ? true : undefined), 60_000, "the worker to take the loop");
    // The next worker waits only 300 ms; it starts before the first one stops, so the queue is never without a worker.
    const hasty = await cluster.startWorker({ WEFT_SHUTDOWN_GRACE_MS: "300" });
    expect(await cluster.kill(patient, "SIGTERM")).toBe(0);
    expect((await settled(apiB, finishes, "completed")).agent?.running).toBe(false);

    // Far longer than the test: a worker that waited for the answer instead of cancelling would fail it.
    llm.enqueue(say("too slow", 600_000));
    const requests = llm.requests.length;
    const cut = await send(apiA, "trusted", "Slow one");
    await waitFor(async () => (llm.requests.length > requests ? true : undefined), 60_000, "the worker to call the LLM");
    expect(await cluster.kill(hasty, "SIGTERM")).toBe(0);
    expect((await settled(apiB, cut, 0, 60_000)).agent?.status).toBe("cancelled");
  });

  it("a message cancelled while it waits for a worker: the worker that takes it starts the loop cancelled, without calling the model", async () => {
    expect(workers).toHaveLength(0);
    const requests = llm.requests.length;
    const id = await send(apiA, "trusted", "Nobody is there yet");
    expect((await read(apiB, id)).agent).toMatchObject({ running: true });
    expect((await apiB.call("POST", `/api/conversations/${id}/cancel`)).status).toBe(200);
    await cluster.startWorker();
    const done = await settled(apiA, id, "cancelled");
    expect(done.messages[0]).toMatchObject({ role: "user", content: "Nobody is there yet" });
    expect(llm.requests.length).toBe(requests);
  });
});
