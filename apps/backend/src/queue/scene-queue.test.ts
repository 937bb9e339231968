import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { z } from "zod";
import { RunEventSchema, SceneLogEntrySchema, SceneStateViewSchema, type RunEvent, type SceneLogEntry, type SceneRuntimeState, type SceneStateView } from "@weft/types";
import { streamedAction, streamedReply } from "../../../../bench/support/instant-llm.ts";
import { countVisitThenAnnounce, scriptedModel } from "../scenes/testing/scripted-model.ts";
import { readPostgresSceneState, readSqliteSceneState } from "../scenes/testing/read-scene-state.ts";
import type { ChildServer } from "../testing/child-server.ts";
import { TestWsClient } from "../testing/ws-client.ts";
import { until } from "../testing/until.ts";
import type { ChildWorker } from "./testing/child-worker.ts";
import { startQueueCluster, type QueueCluster } from "./testing/queue-cluster.ts";
import { holderKey } from "./control-rpc.ts";
import { Queue } from "bullmq";
import { QUEUE_PREFIX, SCENE_QUEUE, sceneJobId } from "./queue-names.ts";

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
const ProfileAnswerSchema = z.object({ profile: z.object({ id: z.string() }) });
const EventsPageSchema = z.object({ events: z.array(RunEventSchema), hasMore: z.boolean() });
const ErrorAnswerSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

/**
 * Scenes in the queue mode end to end: real Redis, the shared database, two API processes and two
 * `weft worker` processes. The workers' tools write into a project folder of their own, so a file a
 * scene's agent wrote shows where the scene ran.
 */
describe("scenes in the queue mode", () => {
  let cluster: QueueCluster;
  let apiProject: string;
  let workerProject: string;
  let apiA: ChildServer;
  let apiB: ChildServer;
  let keys: Redis;
  /** The live workers (the cluster's: killed ones leave it). */
  let workers: ChildWorker[];
  const models: Array<{ stop(): Promise<void> }> = [];

  const state = async (api: ChildServer, sceneId: string): Promise<SceneStateView> => SceneStateViewSchema.parse((await api.call("GET", `/api/scenes/${sceneId}/state`)).body);
  const holder = async (sceneId: string) => (await keys.get(holderKey("scene", sceneId))) ?? undefined;
  const stream = async (sceneId: string): Promise<RunEvent[]> => EventsPageSchema.parse((await apiA.call("GET", `/api/streams/${sceneId}/events?limit=5000`)).body).events;
  const idle = (view: SceneStateView) => view.agents.every((a) => a.status === "idle" && a.inFlight === null && a.queue.length === 0);

  /** An agent profile on `baseUrl`'s model with `tools` (and its own permission rules), and a scene of one instance of it. */
  async function sceneOf(sceneId: string, baseUrl: string, tools: string[], permissions: Array<{ action: string; tool: string }> = []): Promise<void> {
    const llm = ProfileAnswerSchema.parse((await apiA.call("POST", "/api/llm-profiles", { name: sceneId, baseUrl, model: "m", maxRetries: 0 })).body);
    const agent = { id: `${sceneId}-agent`, name: `${sceneId} agent`, deliberationWorkflowId: "agent-deliberation", llmProfileId: llm.profile.id, tools, permissions, maxSteps: 4 };
    expect((await apiA.call("POST", "/api/agents", agent)).status).toBe(201);
    expect((await apiA.call("POST", "/api/scenes", { id: sceneId, name: sceneId, agents: [{ instanceId: "clerk", profileId: agent.id }] })).status).toBe(201);
  }

  /** What the database holds of the scene: its saved state and session log. */
  async function saved(sceneId: string): Promise<{ state: SceneRuntimeState | undefined; log: SceneLogEntry[] }> {
    const parse = (state: SceneRuntimeState | undefined, log: Array<{ data: string }>) => ({
      state,
      log: log.map((r) => SceneLogEntrySchema.parse(JSON.parse(r.data))),
    });
    const { database, dataDir } = cluster;
    if (database.engine === "sqlite") {
      const db = new Database(join(dataDir, "weft.sqlite"), { readonly: true });
      try {
        return parse(readSqliteSceneState(db, sceneId), db.query("SELECT data FROM scene_log WHERE scene_id = ? ORDER BY seq").all(sceneId) as Array<{ data: string }>);
      } finally {
        db.close();
      }
    }
    const sql = new SQL(database.env.WEFT_DATABASE_URL ?? "", { max: 1 });
    try {
      return parse(await readPostgresSceneState(sql, sceneId), (await sql`SELECT data FROM scene_log WHERE scene_id = ${sceneId} ORDER BY seq`) as Array<{ data: string }>);
    } finally {
      await sql.close();
    }
  }

  beforeAll(async () => {
    cluster = await startQueueCluster({
      name: "scene-queue",
      apiProcesses: 2,
      workers: 2,
      projectDir: true,
      workerProjectDir: true,
      // A 5 s job lock: a killed worker's job is found stalled within seconds, and a busy machine still renews it in time
      // (at 1 s, a loop was cancelled mid-action at load average 24).
      env: { WEFT_EXAMPLES_DIR: EXAMPLES, WEFT_WORKER_LOCK_MS: "5000", WEFT_SHUTDOWN_GRACE_MS: "10000" },
    });
    if (!cluster.projectDir || !cluster.workerProjectDir) throw new Error("the cluster came without its project folders");
    [apiProject, workerProject] = [cluster.projectDir, cluster.workerProjectDir];
    [apiA, apiB] = cluster.apis as [ChildServer, ChildServer];
    workers = cluster.workers;
    keys = new Redis(cluster.redis.url);
  });

  afterAll(async () => {
    keys?.disconnect();
    await cluster?.stop();
    for (const m of models) await m.stop();
  });

  it("a scene started through one API runs on a worker (its agent's file lands in the worker's folder); its events reach /ws on the other API, which pauses, resumes and stops it", async () => {
    // Appends a line with a tool, then (having seen the call's observation) answers.
    const office = scriptedModel((messages) =>
      messages.at(-1)?.content?.startsWith("Observation:") ? streamedReply("Noted.") : streamedAction("fs_write", { path: "@project/visits.txt", content: "visit;", mode: "append" }),
    );
    models.push(office);
    await sceneOf("office", office.baseUrl, ["fs:write"]);
    const file = join(workerProject, "visits.txt");
    const wsB = await TestWsClient.connect(apiB.url);
    try {
      wsB.subscribe("office");
      // Started through both APIs at once: one job, one session; the other request is refused.
      const starts = await Promise.all([apiA.call("POST", "/api/scenes/office/start"), apiB.call("POST", "/api/scenes/office/start")]);
      expect(starts.map((r) => r.status).sort()).toEqual([200, 409]);
      const started = starts.find((r) => r.status === 200);
      expect(SceneStateViewSchema.parse(started?.body)).toMatchObject({ status: "running", live: true });
      const hostId = await holder("office");
      expect(workers.map((w) => w.id)).toContain(hostId);
      // Starting it again is refused, as in the embedded mode.
      const again = await apiB.call("POST", "/api/scenes/office/start");
      expect(again.status).toBe(409);
      expect(ErrorAnswerSchema.parse(again.body).error.message).toContain("already running");

      expect((await apiA.call("POST", "/api/scenes/office/messages", { to: "clerk", text: "Note the visit." })).status).toBe(202);
      await until("the clerk to note the visit", async () => (existsSync(file) && idle(await state(apiB, "office")) ? true : undefined));
      expect(readFileSync(file, "utf8")).toBe("visit;");
      // Not where the API processes' tools write: the scene did not run there.
      expect(existsSync(join(apiProject, "visits.txt"))).toBe(false);
      // The worker's events reached the other API's subscriber.
      const observed = await wsB.waitFor((c) => (c.events("office").some((e) => e.type === "agent.observation") ? c.events("office") : undefined), 60_000, "the clerk's observation");
      expect(observed.filter((e) => e.type === "agent.observation")).toHaveLength(1);

      // A refusal made on the worker comes back with its code.
      const unknown = await apiB.call("POST", "/api/scenes/office/agents/nobody/answer", { text: "yes" });
      expect(unknown.status).toBe(404);
      expect(ErrorAnswerSchema.parse(unknown.body).error.code).toBe("NOT_FOUND");

      const paused = await apiB.call("POST", "/api/scenes/office/pause");
      expect(SceneStateViewSchema.parse(paused.body).status).toBe("paused");
      expect((await apiA.call("POST", "/api/scenes/office/messages", { to: "clerk", text: "Note another." })).status).toBe(202);
      await Bun.sleep(500);
      const requestsWhilePaused = office.requests();
      expect(requestsWhilePaused).toBe(2);
      expect((await state(apiA, "office")).agents[0]?.queue).toHaveLength(1);

      expect(SceneStateViewSchema.parse((await apiB.call("POST", "/api/scenes/office/resume")).body).status).toBe("running");
      await until("the second visit", async () => (readFileSync(file, "utf8") === "visit;visit;" && idle(await state(apiA, "office")) ? true : undefined));
      expect(office.requests()).toBe(4);

      expect(SceneStateViewSchema.parse((await apiB.call("POST", "/api/scenes/office/stop")).body).status).toBe("stopped");
      // The worker lets it go: no holder, the saved state says stopped, and messages are refused.
      await until("the worker to let the scene go", async () => ((await holder("office")) === undefined ? true : undefined));
      expect((await state(apiA, "office")).status).toBe("stopped");
      expect((await saved("office")).state?.status).toBe("stopped");
      expect((await apiA.call("POST", "/api/scenes/office/messages", { to: "clerk", text: "Still there?" })).status).toBe(409);
      // A new session starts at once after the stop.
      expect((await apiA.call("POST", "/api/scenes/office/start")).status).toBe(200);
      expect((await apiA.call("POST", "/api/scenes/office/stop")).status).toBe(200);
    } finally {
      wsB.close();
    }
  });

  it("a worker killed with SIGKILL mid-deliberation: the other worker restores the scene and it goes on, no world write applied twice", async () => {
    // Its second request hangs: the worker is killed while the clerk waits for it.
    const town = scriptedModel(countVisitThenAnnounce, 2);
    models.push(town);
    await sceneOf("town", town.baseUrl, ["scene:world-set", "scene:publish-event"]);
    expect((await apiA.call("POST", "/api/scenes/town/start")).status).toBe(200);
    expect((await apiB.call("POST", "/api/scenes/town/messages", { to: "clerk", text: "Count the visitors." })).status).toBe(202);
    await until("the first write to be committed while the clerk still deliberates", async () => {
      const { state: s } = await saved("town");
      return s?.mailboxes.clerk?.inFlight && town.requests() === 2 && (s.world.document.visits as Record<string, unknown> | undefined)?.r1 === 1 ? s : undefined;
    });
    const hostId = await holder("town");
    const host = workers.find((w) => w.id === hostId);
    const survivor = workers.find((w) => w !== host);
    if (!host || !survivor) throw new Error(`expected the scene on one of the two workers, its holder is ${hostId}`);
    await cluster.kill(host, "SIGKILL");

    await until("the other worker to hold the scene", async () => ((await holder("town")) === survivor.id ? true : undefined));
    await until("the resumed clerk to finish", async () => (idle(await state(apiB, "town")) && (await saved("town")).log.some((e) => e.kind === "deliberation.finished") ? true : undefined));
    const after = await saved("town");
    const changes = after.log.flatMap((e) => (e.kind === "world.changed" ? [`${e.change.path}=${JSON.stringify(e.change.after)}`] : []));
    // The first step's answer came from the record (not asked again), its write was not made twice, and the scene went on.
    expect(changes).toEqual(["visits.r1=1"]);
    expect(after.state?.world.document).toEqual({ visits: { r1: 1 } });
    expect(after.log.filter((e) => e.kind === "event" && e.topic === "town.counted")).toHaveLength(1);
    expect(town.requests()).toBe(4);
    expect((await state(apiA, "town")).status).toBe("running");
    // Every committed change is in the stream once, in order, without gaps.
    const events = await stream("town");
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(events.filter((e) => e.type === "world.changed")).toHaveLength(1);
  });

  it("SIGTERM hands a held scene back: the worker exits, another one continues it", async () => {
    const replacement = await cluster.startWorker();
    const hostId = await holder("town");
    const host = workers.find((w) => w.id === hostId);
    if (!host) throw new Error(`the scene's holder ${hostId} is not one of the workers`);
    expect(await cluster.kill(host, "SIGTERM")).toBe(0);
    await until("the other worker to hold the scene", async () => ((await holder("town")) === replacement.id ? true : undefined));
    // Saved running, continued running, and it answers from its new worker.
    expect((await state(apiB, "town")).status).toBe("running");
    expect(SceneStateViewSchema.parse((await apiA.call("POST", "/api/scenes/town/pause")).body).status).toBe("paused");
    expect((await saved("town")).state?.world.document).toEqual({ visits: { r1: 1 } });
    expect((await apiA.call("POST", "/api/scenes/town/stop")).status).toBe(200);
  });

  it("a permission question of a scene's agent is asked on the worker and answered through an API", async () => {
    const vault = scriptedModel((messages) =>
      messages.at(-1)?.content?.startsWith("Observation:") ? streamedReply("Stored.") : streamedAction("fs_write", { path: "@project/vault.txt", content: "approved", mode: "overwrite" }),
    );
    models.push(vault);
    await sceneOf("vault", vault.baseUrl, ["fs:write"], [{ action: "ask", tool: "fs.write" }]);
    expect((await apiA.call("POST", "/api/scenes/vault/start")).status).toBe(200);
    expect((await apiA.call("POST", "/api/scenes/vault/messages", { to: "clerk", text: "Store it." })).status).toBe(202);
    const asked = await until("the clerk's permission question", async () => (await state(apiB, "vault")).agents[0]?.pendingPermissions[0]);
    expect(asked.tool).toBe("fs.write");
    expect(existsSync(join(workerProject, "vault.txt"))).toBe(false);
    // An unknown request is refused by the worker, with its code.
    expect((await apiB.call("POST", "/api/scenes/vault/agents/clerk/permissions/nope", { answer: "once" })).status).toBe(404);
    expect((await apiB.call("POST", `/api/scenes/vault/agents/clerk/permissions/${asked.requestId}`, { answer: "once" })).status).toBe(200);
    await until("the approved write", async () => (existsSync(join(workerProject, "vault.txt")) && idle(await state(apiA, "vault")) ? true : undefined));
    expect(readFileSync(join(workerProject, "vault.txt"), "utf8")).toBe("approved");
    expect((await apiA.call("POST", "/api/scenes/vault/stop")).status).toBe(200);
  });

  it("an API process starting finds a scene saved running with no job (its worker and job gone) and queues it for a worker to continue", async () => {
    const office = await apiA.call("POST", "/api/scenes/office/start");
    expect(office.status).toBe(200);
    const only = workers[0];
    expect(await holder("office")).toBe(only.id);
    await cluster.kill(only, "SIGKILL");
    // The job goes too (as when Redis lost it): BullMQ removes it once its dead worker's lock expired.
    const scenes = new Queue(SCENE_QUEUE, { connection: { url: cluster.redis.url }, prefix: QUEUE_PREFIX });
    try {
      await until("the job to be removed", async () => ((await scenes.remove(sceneJobId("office"))) === 1 ? true : undefined), 60_000);
      expect((await saved("office")).state?.status).toBe("running");
      const apiC = await cluster.startApi();
      try {
        // Sealed by the API that queued it: a worker runs no unsealed job.
        expect((await scenes.getJob(sceneJobId("office")))?.data).toEqual({ sceneId: "office", mode: "restore", seal: { id: expect.any(String), ts: expect.any(Number), sig: expect.any(String) } });
        await cluster.startWorker();
        await until("the new worker to hold the scene", async () => ((await holder("office")) === workers[0]?.id ? true : undefined));
        expect((await apiC.call("POST", "/api/scenes/office/stop")).status).toBe(200);
      } finally {
        await cluster.kill(apiC, "SIGKILL");
      }
    } finally {
      await scenes.close();
    }
  });
});
