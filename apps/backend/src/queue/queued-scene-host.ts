import { randomUUID } from "node:crypto";
import { Queue } from "bullmq";
import { z } from "zod";
import { AgentTriggerSchema, SceneStateViewSchema, messageOf, type AgentTrigger, type Logger, type PermissionAnswer, type SceneStateView } from "@weft/types";
import { ServiceError } from "../service-error.ts";
import type { SceneHost } from "../scenes/scene-host.ts";
import type { SceneService } from "../scenes/scene-service.ts";
import type { SceneStore } from "../scenes/scene-store.ts";
import { bullConnection, errorReporter, QUEUE_PREFIX, SCENE_JOB, SCENE_QUEUE, sceneJobId, whileQueueReachable, type SceneJobData } from "./queue-names.ts";
import type { ApiQueueMode } from "./api-queue-mode.ts";
import { readStart, type SceneControl } from "./scene-control.ts";
import { sealJob, type SealedJob } from "./queue-seal.ts";

const TriggersSchema = z.object({ triggers: z.array(AgentTriggerSchema) });

/** How long a start waits for a worker to take the scene before it gives up (and takes the job back if none did). */
const START_WAIT_MS = 30_000;
/** How often a waiting start looks for the worker's outcome, and a start after a stop for the old job to be gone. */
const POLL_MS = 20;
/** How long a start waits for the job of a scene just stopped to complete (its worker is letting it go). */
const STOPPED_JOB_WAIT_MS = 5_000;

type Op = SceneControl["op"];

/**
 * The queue mode's scene host, API side: the scenes run on `weft worker` processes (`scene-worker.ts`).
 * A start adds the scene's job (its id derived from the scene id, so two API processes cannot start
 * it twice) and waits until a worker reports the session started, or why not. Pause, resume, stop,
 * messages and answers go to the worker holding the scene (`control-rpc.ts`), whose refusals come
 * back with their codes. Live state is the holder's, else the saved one; timelines and replays are
 * read from storage by this process's own `SceneService` (which runs no scene here).
 */
export class QueuedSceneHost implements SceneHost {
  private readonly queue: Queue<SealedJob<SceneJobData>>;

  constructor(
    /** This process's service: answers from storage, checks starts, runs replays. */
    private readonly local: SceneService,
    private readonly store: SceneStore,
    private readonly mode: Pick<ApiQueueMode, "control" | "redis" | "redisUrl" | "seal">,
    private readonly log: Logger,
    private readonly startWaitMs = START_WAIT_MS,
  ) {
    // Fail fast, as the run queue: with Redis away a request answers 503 at once instead of hanging.
    this.queue = new Queue<SealedJob<SceneJobData>>(SCENE_QUEUE, { connection: bullConnection(mode.redisUrl, "fail-fast"), prefix: QUEUE_PREFIX });
    this.queue.on("error", errorReporter("scene queue", log));
  }

  async start(sceneId: string, startedBy?: string): Promise<SceneStateView> {
    // Refused here, with the embedded mode's errors, before anything is queued.
    await this.local.checkStartable(sceneId);
    return reachable(`start scene "${sceneId}"`, async () => {
      const jobId = sceneJobId(sceneId);
      await this.refuseIfHosted(sceneId, jobId);
      const requestId = randomUUID();
      const data: SceneJobData = { sceneId, mode: "new", requestId, ...(startedBy !== undefined ? { startedBy } : {}) };
      await this.queue.add(SCENE_JOB, sealJob(this.mode.seal, SCENE_QUEUE, jobId, data), { jobId, removeOnComplete: true, removeOnFail: true });
      // The same job id added twice is one job: only the request whose data it holds started it.
      if ((await this.queue.getJob(jobId))?.data.requestId !== requestId) {
        throw new ServiceError("CONFLICT", `Scene "${sceneId}" is being started by another request; wait for it (GET /api/scenes/${sceneId}/state).`, { sceneId });
      }
      await this.awaitStart(sceneId, jobId, requestId);
      return this.state(sceneId);
    });
  }

  pause(sceneId: string): Promise<SceneStateView> {
    return this.ask(sceneId, { op: "pause" }, SceneStateViewSchema);
  }

  resume(sceneId: string): Promise<SceneStateView> {
    return this.ask(sceneId, { op: "resume" }, SceneStateViewSchema);
  }

  stop(sceneId: string): Promise<SceneStateView> {
    return this.ask(sceneId, { op: "stop" }, SceneStateViewSchema);
  }

  sendMessage(sceneId: string, to: string, text: string): Promise<{ triggers: AgentTrigger[] }> {
    return this.ask(sceneId, { op: "sendMessage", to, text }, TriggersSchema);
  }

  answerQuestion(sceneId: string, instanceId: string, text: string): Promise<{ triggers: AgentTrigger[] }> {
    return this.ask(sceneId, { op: "answerQuestion", instanceId, text }, TriggersSchema);
  }

  async answerPermission(sceneId: string, instanceId: string, requestId: string, answer: PermissionAnswer): Promise<void> {
    await this.ask(sceneId, { op: "answerPermission", instanceId, requestId, answer }, z.null());
  }

  /** The holder's live view; when nobody holds the scene (or its holder is gone), the saved one. */
  async state(sceneId: string): Promise<SceneStateView> {
    try {
      const outcome = await this.mode.control.call("scene", sceneId, "state");
      if (outcome.held) return SceneStateViewSchema.parse(outcome.value);
    } catch (error) {
      // Its worker is gone and no other has taken it over yet: the saved state is the best answer.
      if (!(error instanceof ServiceError && error.code === "SERVICE_UNAVAILABLE")) throw error;
    }
    return this.local.state(sceneId);
  }

  timeline(sceneId: string, query: { fromSeq: number; limit: number; since?: string; maxBytes?: number }) {
    return this.local.timeline(sceneId, query);
  }

  /** Runs in this process, from the stored session (a replay touches no live scene). */
  prepareReplay(sceneId: string) {
    return this.local.prepareReplay(sceneId);
  }

  async forget(sceneId: string): Promise<void> {
    await reachable(`stop deleted scene "${sceneId}"`, async () => {
      // The holder unloads it and removes its rows; a job still waiting for a worker is taken back.
      await this.mode.control.call("scene", sceneId, "forget").catch((error: unknown) => this.log.warn("the worker holding a deleted scene did not answer", { sceneId, error: messageOf(error) }));
      await this.queue.remove(sceneJobId(sceneId));
    });
    await this.local.forget(sceneId);
  }

  /**
   * At start: every scene saved as running or paused gets a restore job, so that a worker continues
   * it (this process runs none). Idempotent through the job id: a scene a worker holds, or whose job
   * waits already, is left alone; so several API processes starting at once queue each scene once.
   */
  async recover(): Promise<string[]> {
    const queued: string[] = [];
    for (const { sceneId, status } of await this.store.savedStatuses()) {
      if (status !== "running" && status !== "paused") continue;
      try {
        const jobId = sceneJobId(sceneId);
        await this.queue.add(SCENE_JOB, sealJob(this.mode.seal, SCENE_QUEUE, jobId, { sceneId, mode: "restore" }), { jobId, removeOnComplete: true, removeOnFail: true });
        queued.push(sceneId);
      } catch (error) {
        this.log.error("scene not queued for a worker to continue", { sceneId, error: messageOf(error) });
      }
    }
    return queued;
  }

  /** A worker continues it, as a scene `recover` finds saved running. */
  async continueSaved(sceneId: string): Promise<void> {
    await reachable(`continue scene "${sceneId}"`, async () => {
      const jobId = sceneJobId(sceneId);
      await this.queue.add(SCENE_JOB, sealJob(this.mode.seal, SCENE_QUEUE, jobId, { sceneId, mode: "restore" }), { jobId, removeOnComplete: true, removeOnFail: true });
    });
  }

  /** Scenes run on workers: nothing to save here. */
  async shutdown(): Promise<void> {
    await this.local.shutdown();
    await this.queue.close().catch(() => undefined);
  }

  /** Sends `request` to the scene's holder and reads its answer with `schema`; refuses as the embedded mode does when nobody holds it. */
  private async ask<T>(sceneId: string, request: SceneControl, schema: z.ZodType<T>): Promise<T> {
    const { op, ...args } = request;
    const outcome = await reachable(`${op} scene "${sceneId}"`, () => this.mode.control.call("scene", sceneId, op, args));
    if (outcome.held) return schema.parse(outcome.value);
    throw await this.notHeld(sceneId, op);
  }

  private async notHeld(sceneId: string, op: Op): Promise<ServiceError> {
    const job = await reachable(`${op} scene "${sceneId}"`, () => this.queue.getJob(sceneJobId(sceneId)));
    if (job) {
      return new ServiceError("SERVICE_UNAVAILABLE", `Scene "${sceneId}" is waiting for a worker to load it (being started, or its worker stopped); try again in a moment.`, { sceneId });
    }
    return new ServiceError("CONFLICT", `Scene "${sceneId}" is not running; start it with POST /api/scenes/${sceneId}/start.`, { sceneId });
  }

  /** A scene with a job is hosted (or about to be): starting it again is refused as in the embedded mode, unless it was just stopped. */
  private async refuseIfHosted(sceneId: string, jobId: string): Promise<void> {
    if (!(await this.queue.getJob(jobId))) return;
    const view = await this.state(sceneId);
    if (view.live && view.status === "stopped") {
      // Its worker is letting it go: the job completes in a moment.
      const deadline = Date.now() + STOPPED_JOB_WAIT_MS;
      while (Date.now() < deadline) {
        if (!(await this.queue.getJob(jobId))) return;
        await Bun.sleep(POLL_MS);
      }
    }
    const status = view.live ? view.status : "waiting for a worker";
    throw new ServiceError("CONFLICT", `Scene "${sceneId}" is already ${status}; stop it first (POST /api/scenes/${sceneId}/stop) to start a new session.`, { status: view.status });
  }

  /** Until the worker that took the job reports the session started (or throws its refusal). */
  private async awaitStart(sceneId: string, jobId: string, requestId: string): Promise<void> {
    let deadline = Date.now() + this.startWaitMs;
    let extended = false;
    for (;;) {
      if (await readStart(this.mode.redis, this.mode.seal, requestId)) return;
      if (Date.now() >= deadline) {
        // Taken back only while no worker holds it: then nothing was started.
        if ((await this.queue.remove(jobId)) === 1) {
          throw new ServiceError("SERVICE_UNAVAILABLE", `No worker took scene "${sceneId}" within ${this.startWaitMs / 1000} s, so it was not started; are \`weft worker\` processes running?`, {
            sceneId,
            reason: "NO_WORKER",
          });
        }
        // A worker took it just now: waited for once more.
        if (extended || !(await this.queue.getJob(jobId))) {
          throw new ServiceError("SERVICE_UNAVAILABLE", `The worker starting scene "${sceneId}" has not reported it started; see GET /api/scenes/${sceneId}/state.`, { sceneId });
        }
        extended = true;
        deadline = Date.now() + this.startWaitMs;
      }
      await Bun.sleep(POLL_MS);
    }
  }
}

/** Redis (or BullMQ) failing under a request: a 503, as for runs, rather than a 500. */
const reachable = <T>(what: string, work: () => Promise<T>) => whileQueueReachable("scene queue", what, work);
