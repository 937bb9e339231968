import { WaitingError, type Job, type Worker } from "bullmq";
import type { Redis } from "ioredis";
import { messageOf, type Logger } from "@weft/types";
import { ServiceError } from "../service-error.ts";
import type { SceneService } from "../scenes/scene-service.ts";
import { queueWorker, SCENE_QUEUE, SceneJobDataSchema, type QueueWorkerSlots, type SceneJobData } from "./queue-names.ts";
import type { ControlServer } from "./control-rpc.ts";
import { reportStart, SceneControlSchema } from "./scene-control.ts";
import { openJob, RejectedJobError, sealJob, type QueueSeal, type SealedJob } from "./queue-seal.ts";

/**
 * How long a sealed "start a new session" job is accepted: the API waiting for it takes it back after 30 s
 * anyway, and a start captured from Redis cannot be replayed later to start the scene again.
 */
const NEW_SCENE_MAX_AGE_MS = 10 * 60_000;

/** `concurrency`: scenes this process holds at once (a held scene's job stays active while it is loaded, running or paused). */
export type SceneWorkerOptions = QueueWorkerSlots;

export interface SceneWorkerDeps {
  /** This worker's scene service: it hosts the scenes whose jobs this worker holds. */
  service: SceneService;
  /** Records this worker as a scene's holder, so API processes' requests about it come here. */
  control: ControlServer;
  /** For the start outcomes the API waits for (a normal connection). */
  redis: Redis;
  /** Checks each job (and re-seals it as it becomes a restore); seals the start outcomes. */
  seal: QueueSeal;
  log: Logger;
}

/** How a held scene's job ends: stopped or deleted ("done"), handed back at shutdown, or lost to another worker. */
type Ending = "done" | "handback" | "lost";

interface HeldScene {
  jobId: string;
  end(how: Ending): void;
  ended: Promise<Ending>;
}

/**
 * The scenes of the queue mode on a `weft worker`: one BullMQ job per started scene, active as long
 * as the scene is loaded here. Taking it loads the scene into this worker's `SceneService` (a new
 * session, or the saved one continued) and records this worker as its holder; the scene runs here,
 * with its agents and all the runs they cause, until it is stopped or deleted (the job completes).
 *
 * A worker killed mid-scene stops renewing the job's lock: BullMQ's stalled-job check gives the job
 * to another worker, which restores the scene from its store (the exactly-once recovery of
 * `../scenes/README.md`, "Crashes") and goes on. SIGTERM saves each scene and hands its job back
 * (moved to waiting): another worker, or this one once restarted, continues it.
 */
export class SceneWorker {
  private readonly held = new Map<string, HeldScene>();
  private worker: Worker<SealedJob<SceneJobData>> | undefined;
  private closing = false;

  constructor(
    private readonly options: SceneWorkerOptions,
    private readonly deps: SceneWorkerDeps,
  ) {}

  /** Scenes loaded here now. */
  get heldCount(): number {
    return this.held.size;
  }

  async start(): Promise<void> {
    this.worker = queueWorker<SealedJob<SceneJobData>>(
      SCENE_QUEUE,
      (job, token) => this.process(job, token),
      // Each hand-over after a stall restores the scene from what was committed, which is safe to repeat;
      // past this count BullMQ fails the job (a scene that kills every worker that loads it).
      { ...this.options, maxStalledCount: 10, what: "scene worker" },
      this.deps.log,
    );
    // The lock expired while this process still held the scene (its event loop stalled): another worker
    // may have restored it already. Stop it here without writing anything more.
    this.worker.on("lockRenewalFailed", (jobIds) => {
      for (const held of this.held.values()) if (jobIds.includes(held.jobId)) held.end("lost");
    });
    this.worker.on("failed", (job, error) => {
      if (!(error instanceof RejectedJobError)) this.deps.log.warn("scene job failed", { sceneId: job?.data.sceneId, error: messageOf(error) });
    });
    await this.worker.waitUntilReady();
  }

  /** Stops taking scenes; saves every held one and hands its job back (another worker continues it). */
  async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.closing = true;
    const closed = worker.close();
    for (const held of this.held.values()) held.end("handback");
    await closed;
  }

  /** A request from an API process about a scene held here (see `control-rpc.ts`). */
  async control(sceneId: string, op: string, args: unknown): Promise<unknown> {
    const parsed = SceneControlSchema.safeParse({ ...(typeof args === "object" && args !== null ? args : {}), op });
    if (!parsed.success) throw new ServiceError("VALIDATION_FAILED", `Unknown or malformed scene request "${op}".`, { op });
    const request = parsed.data;
    const { service } = this.deps;
    switch (request.op) {
      case "state":
        return service.state(sceneId);
      case "pause":
        return service.pause(sceneId);
      case "resume":
        return service.resume(sceneId);
      case "stop": {
        const view = await service.stop(sceneId);
        this.held.get(sceneId)?.end("done");
        return view;
      }
      case "forget":
        await service.forget(sceneId);
        this.held.get(sceneId)?.end("done");
        return null;
      case "sendMessage":
        return service.sendMessage(sceneId, request.to, request.text);
      case "answerQuestion":
        return service.answerQuestion(sceneId, request.instanceId, request.text);
      case "answerPermission":
        await service.answerPermission(sceneId, request.instanceId, request.requestId, request.answer);
        return null;
      default: {
        const never: never = request;
        return never;
      }
    }
  }

  private async process(job: Job<SealedJob<SceneJobData>>, token: string | undefined): Promise<void> {
    const { service, control, log, seal } = this.deps;
    // A restore only continues a session stored running or paused, so it may wait any time; a new session only briefly.
    const data = openJob(seal, SCENE_QUEUE, job, SceneJobDataSchema, "a scene job", job.data.mode === "new" ? { maxAgeMs: NEW_SCENE_MAX_AGE_MS } : {});
    const { sceneId } = data;
    let end: (how: Ending) => void = () => undefined;
    const held: HeldScene = { jobId: job.id ?? "", end: (how) => end(how), ended: new Promise<Ending>((resolve) => (end = resolve)) };
    this.held.set(sceneId, held);
    log.info("scene taken", { sceneId, mode: data.mode, attempt: job.attemptsStarted });
    try {
      if (data.mode === "new") {
        try {
          await service.start(sceneId, data.startedBy);
        } catch (error) {
          await reportStart(this.deps.redis, seal, data.requestId, error);
          return;
        }
        // From now on the job continues this session: handed over after a stall, it restores it.
        await job.updateData(sealJob(seal, SCENE_QUEUE, job.id ?? "", { ...data, mode: "restore" }));
      } else if (!(await service.restore(sceneId))) {
        // Stopped or deleted meanwhile, or never started: nothing to continue.
        return;
      }
      await control.hold("scene", sceneId);
      if (data.mode === "new") await reportStart(this.deps.redis, seal, data.requestId);
      if (this.closing) held.end("handback");
      const how = await held.ended;
      log.info("scene let go", { sceneId, how });
      switch (how) {
        case "done":
          await service.release(sceneId, true);
          return;
        case "lost":
          await service.release(sceneId, false);
          return;
        case "handback":
          await service.release(sceneId, true);
          await control.release("scene", sceneId);
          // Back to waiting, not completed: the next worker to take it restores the scene.
          await job.moveToWait(token);
          throw new WaitingError();
        default: {
          const never: never = how;
          return never;
        }
      }
    } catch (error) {
      if (error instanceof WaitingError) throw error;
      // Not loaded (its profiles changed, its store unreadable): it stays saved as it was, as an API's recover leaves it.
      log.error("scene not hosted", { sceneId, error: messageOf(error) });
      await service.release(sceneId, false).catch(() => undefined);
    } finally {
      if (this.held.get(sceneId) === held) this.held.delete(sceneId);
      // Only if it still names this worker: after a lost lock it may name the one that took over.
      await control.release("scene", sceneId).catch((error: unknown) => log.warn("releasing a scene's holder key failed", { sceneId, error: messageOf(error) }));
    }
  }
}
