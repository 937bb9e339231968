import { context } from "@opentelemetry/api";
import { WaitingError, type Job, type Worker } from "bullmq";
import type { Redis } from "ioredis";
import { z } from "zod";
import { engineError, messageOf, PermissionAnswerSchema, type Logger, type NodeError } from "@weft/types";
import type { AgentService } from "../agents/agent-service.ts";
import type { Storage } from "../app-storage.ts";
import type { RunExecutor } from "../runs/run-executor.ts";
import { ServiceError } from "../service-error.ts";
import { AGENT_CANCEL_KEY_SECONDS, agentBusyKey, agentCancelKey, AGENT_QUEUE, AgentJobDataSchema, deleteIfValue, queueWorker, type AgentJobData, type QueueWorkerSlots } from "./queue-names.ts";
import { openJob, RejectedJobError, type QueueSeal, type SealedJob } from "./queue-seal.ts";
import type { ControlHandler, ControlServer } from "./control-rpc.ts";
import { jobTraceParent } from "./run-trace.ts";

/** What an API may ask the worker holding a conversation's loop (`QueuedAgentHost` sends them). */
export const AgentControlOpSchema = z.enum(["state", "cancel", "answerPermission"]);
export type AgentControlOp = z.infer<typeof AgentControlOpSchema>;
export const AnswerPermissionArgsSchema = z.object({ requestId: z.string(), answer: PermissionAnswerSchema });

const KILLED_REASON = "The worker running this loop stopped before it finished (killed or lost); it was not run again. Send your message again to go on.";
const RUN_LOST: NodeError = engineError("INTERRUPTED", "The worker running the agent loop that started this run stopped before the run finished.");
/** The runs a loop started (a set, named by the job), so the worker closing the loop after a kill can close them too. */
const loopRunsKey = (jobId: string) => `weft:agent-runs:${jobId}`;
/** Kept this long at most: a killed worker's job is found stalled within seconds to minutes. */
const LOOP_RUNS_TTL_SECONDS = 24 * 3600;

/** Deletes a conversation's busy marker only if it still names this job (a later message may have set it since). */
export async function releaseAgentBusy(redis: Redis, conversationId: string, jobId: string): Promise<void> {
  await deleteIfValue(redis, agentBusyKey(conversationId), jobId);
}

/** `concurrency`: loops run at once by this process (most of their time is spent waiting: for the LLM, a permission). */
export type AgentWorkerOptions = QueueWorkerSlots;

export interface AgentWorkerDeps {
  /** Built with `keepIdle: false`: every loop starts from the stored conversation and session. */
  agents: AgentService;
  control: ControlServer;
  /** A normal command connection (busy markers, cancel keys). */
  redis: Redis;
  /** To close the runs of a loop whose worker was killed (`interrupted`, as `RunWorker` closes its own). */
  storage: Storage;
  executor: RunExecutor;
  /** Checks each job and cancel key: only a message an API of this installation queued runs, as the user named in it. */
  seal: QueueSeal;
  log: Logger;
}

/**
 * Takes agent message jobs (queue mode) and runs each conversation's loop here, holding the
 * conversation (`control-rpc.ts`) while it runs so that API processes can read its live state,
 * answer its permission questions and cancel it. The loop's deliberation and action runs execute
 * in this process; its events reach every API's /ws through the relay.
 *
 * A job handed over again after a stall (its worker was killed) is not run again — its tool calls
 * would be repeated unasked: the conversation's session is closed `failed` with the reason, an
 * `agent.finished` event says so, and the busy marker goes, so the user can send the next message.
 */
export class AgentWorker {
  /** Conversations whose loops run here, and the job each belongs to. */
  private readonly held = new Map<string, { jobId: string; controller: AbortController }>();
  private worker: Worker<SealedJob<AgentJobData>> | undefined;
  /** Set by `stop`: a job taken from now on is handed back before its loop starts. */
  private closing = false;

  constructor(
    private readonly options: AgentWorkerOptions,
    private readonly deps: AgentWorkerDeps,
  ) {}

  get activeCount(): number {
    return this.held.size;
  }

  async start(): Promise<void> {
    this.worker = queueWorker<SealedJob<AgentJobData>>(
      AGENT_QUEUE,
      (job, token) => this.process(job, token),
      // As for runs: the second hand-over only closes the loop; 2 lets the closing worker die too, once.
      { ...this.options, maxStalledCount: 2, what: "agent queue worker" },
      this.deps.log,
    );
    // Another worker may take the job over (and close the conversation): stop the loop here.
    this.worker.on("lockRenewalFailed", (jobIds) => {
      for (const [conversationId, held] of this.held) {
        if (!jobIds.includes(held.jobId)) continue;
        this.deps.log.warn("lost the lock of an agent loop; stopping it here", { conversationId });
        held.controller.abort();
        void this.deps.agents.cancel(conversationId).catch(() => undefined);
      }
    });
    this.worker.on("failed", (job, error) => {
      if (!(error instanceof RejectedJobError)) this.deps.log.warn("agent job failed", { conversationId: job?.data.conversationId, error: messageOf(error) });
    });
    await this.worker.waitUntilReady();
  }

  /** Answers an API's request about a conversation held here (`ServiceError`s reach the API with their code). */
  readonly control: ControlHandler = async (_kind, conversationId, op, args) => {
    const parsed = AgentControlOpSchema.safeParse(op);
    if (!parsed.success) throw new ServiceError("VALIDATION_FAILED", `A worker cannot "${op}" an agent's conversation.`);
    const { agents } = this.deps;
    const which = parsed.data;
    switch (which) {
      case "state":
        return agents.liveState(conversationId) ?? null;
      case "cancel":
        this.held.get(conversationId)?.controller.abort();
        await agents.cancel(conversationId);
        return null;
      case "answerPermission": {
        const { requestId, answer } = AnswerPermissionArgsSchema.parse(args);
        await agents.answerPermission(conversationId, requestId, answer);
        return null;
      }
      default: {
        const never: never = which;
        return never;
      }
    }
  };

  /** For `AgentServiceDeps.onRunStarted`: notes the run under the job of the loop that started it. */
  readonly noteRun = (conversationId: string, runId: string): void => {
    const held = this.held.get(conversationId);
    if (!held) return;
    const key = loopRunsKey(held.jobId);
    void this.deps.redis
      .multi()
      .sadd(key, runId)
      .expire(key, LOOP_RUNS_TTL_SECONDS)
      .exec()
      .catch((error: unknown) => this.deps.log.warn("noting an agent loop's run failed", { conversationId, runId, error: messageOf(error) }));
  };

  /**
   * Stops taking jobs; running loops get `graceMs` to end, then they are cancelled (their sessions say
   * `cancelled`, their jobs complete), so nothing is left running with nobody holding it.
   */
  async stop(graceMs: number): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.closing = true;
    const closed = worker.close();
    await this.deps.agents.shutdown(graceMs);
    await closed;
  }

  private async process(job: Job<SealedJob<AgentJobData>>, token: string | undefined): Promise<void> {
    const { agents, redis, log, seal } = this.deps;
    const data = openJob(seal, AGENT_QUEUE, job, AgentJobDataSchema, "an agent message job");
    const { agentId, conversationId } = data;
    const jobId = job.id ?? "";
    // The same sealed job added again after its loop ran: the conversation has moved on since it was queued.
    if (job.stalledCounter === 0 && (await this.deps.storage.conversations.messages(conversationId)).length !== data.messagesBefore) {
      seal.reject("replayed", "an agent message job", `conversation ${conversationId} changed since the message was queued`);
      throw new RejectedJobError("an agent message job");
    }
    log.info("agent loop taken", { conversationId, jobId, attempt: job.attemptsStarted });
    // Taken just as this worker began to stop, before its loop started: back to waiting for another worker (the busy marker stays).
    let handBack = false;
    try {
      if (job.stalledCounter > 0) {
        log.warn("an agent loop's worker stopped mid-loop; closing it without running it again", { conversationId });
        await agents.closeInterrupted(agentId, conversationId, KILLED_REASON, job.timestamp);
        await this.closeRuns(jobId);
        return;
      }
      handBack = this.closing;
      if (!handBack) handBack = !(await this.runLoop(jobId, data));
      if (handBack) {
        log.info("agent loop handed back: this worker is stopping", { conversationId });
        await job.moveToWait(token);
        throw new WaitingError();
      }
    } catch (error) {
      if (error instanceof WaitingError) throw error;
      handBack = false;
      log.error("agent loop did not run", { conversationId, error: messageOf(error) });
      await agents.reportFailure(agentId, conversationId, `The agent's loop did not run: ${messageOf(error)}`).catch(() => undefined);
    } finally {
      if (!handBack)
        await Promise.all([releaseAgentBusy(redis, conversationId, jobId), redis.del(agentCancelKey(jobId), loopRunsKey(jobId))]).catch((error: unknown) =>
          log.warn("releasing a conversation's busy marker failed", { conversationId, error: messageOf(error) }),
        );
    }
  }

  /** Holds the conversation and runs its loop to the end; false when the service refused it because this worker is stopping. */
  private async runLoop(jobId: string, data: AgentJobData): Promise<boolean> {
    const { agents, control, redis, seal } = this.deps;
    const { agentId, conversationId, message, createdBy, traceparent } = data;
    const controller = new AbortController();
    this.held.set(conversationId, { jobId, controller });
    await control.hold("agent", conversationId);
    try {
      // Held before the cancel key is read: a cancel that comes later finds this worker holding the loop.
      const cancel = await redis.get(agentCancelKey(jobId));
      if (cancel !== null && seal.unwrap(agentCancelKey(jobId), cancel, z.literal(jobId), "a conversation's cancel key", { maxAgeMs: AGENT_CANCEL_KEY_SECONDS * 1000 }) !== undefined)
        controller.abort();
      try {
        // In the trace the message was sent in, when it was sent in one: the loop's spans join it.
        await context.with(jobTraceParent(traceparent), () =>
          data.profile === undefined
            ? agents.sendMessage(agentId, message, conversationId, createdBy, { signal: controller.signal })
            : agents.sendMessageAs(data.profile, message, conversationId, createdBy, { signal: controller.signal }),
        );
      } catch (error) {
        if (this.closing && error instanceof ServiceError && error.code === "SERVICE_UNAVAILABLE") return false;
        throw error;
      }
      await agents.loopEnded(conversationId);
      return true;
    } finally {
      this.held.delete(conversationId);
      await control.release("agent", conversationId);
    }
  }

  /** Ends the runs a killed loop left `running` (its deliberation, its action) `interrupted`; finished ones are left alone. */
  private async closeRuns(jobId: string): Promise<void> {
    const { redis, storage, executor } = this.deps;
    for (const runId of await redis.smembers(loopRunsKey(jobId))) {
      const run = await storage.runs.get(runId);
      if (run?.status !== "running") continue;
      await executor.finishUnstarted(runId, "interrupted", "interrupted: the worker running its agent loop stopped", RUN_LOST, run.startedAt);
    }
  }
}
