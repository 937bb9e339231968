import { randomUUID } from "node:crypto";
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { messageOf, type AgentProfile, type Conversation, type Logger, type NodeCatalog, type PermissionAnswer, type WorkflowSource } from "@weft/types";
import type { Storage } from "../app-storage.ts";
import { notFound, ServiceError } from "../service-error.ts";
import {
  AgentConversationStateSchema,
  busyError,
  checkRunnable,
  listAgentConversations,
  messageTarget,
  storedAgentState,
  storedConversation,
  type AgentConversationState,
  type AgentHost,
  type ConversationView,
} from "../agents/agent-host.ts";
import { AGENT_CANCEL_KEY_SECONDS, AGENT_JOB, AGENT_QUEUE, agentBusyKey, agentCancelKey, bullConnection, errorReporter, QUEUE_PREFIX, whileQueueReachable, type AgentJobData } from "./queue-names.ts";
import type { ControlClient } from "./control-rpc.ts";
import { releaseAgentBusy, type AgentControlOp } from "./agent-worker.ts";
import { sealJob, type QueueSeal, type SealedJob } from "./queue-seal.ts";
import { activeTraceparent } from "../tracing/caller-trace.ts";

/** Failed jobs kept in Redis for inspection. */
const KEEP_FAILED_JOBS = 1000;
/**
 * A busy marker whose job BullMQ does not know is stale (its API stopped between marking and queueing)
 * once it is this old; younger, its job may be on its way into the queue.
 */
const STALE_MARKER_MS = 30_000;
/** How long a message waits for a finished loop's worker to drop the conversation's busy marker, and how often it looks. */
const FINISHING_WAIT_MS = 5_000;
const FINISHING_POLL_MS = 25;
/** What a refused send could not do (for its 503). */
const SEND = "send the message";

export interface QueuedAgentHostDeps {
  storage: Storage;
  /** What a profile names is checked against them before a message is queued (as the embedded mode refuses it). */
  catalog: NodeCatalog;
  workflows: WorkflowSource;
  /** The API's fail-fast command connection. */
  redis: Redis;
  redisUrl: string;
  control: ControlClient;
  /** Seals each job and cancel key: a worker runs only messages an API of this installation queued, as the user who sent them. */
  seal: QueueSeal;
  log: Logger;
}

/**
 * The queue mode's agents, API side: a message becomes a job on the "agents" queue, which a
 * `weft worker` takes and runs the conversation's loop on (`agent-worker.ts`). A busy marker in Redis
 * (SET NX, the job's id) refuses a second message while a loop is queued or running, across API
 * processes, as `AgentService` does in one. Live state, permission answers and cancels go to the
 * worker holding the loop (`control-rpc.ts`); with nobody holding it, the answer comes from storage.
 */
export class QueuedAgentHost implements AgentHost {
  private queue: Queue<SealedJob<AgentJobData>> | undefined;
  private stopping = false;

  constructor(private readonly deps: QueuedAgentHostDeps) {}

  async sendMessage(agentId: string, message: string, conversationId?: string, createdBy?: string): Promise<{ conversationId: string }> {
    if (this.stopping) throw new ServiceError("SERVICE_UNAVAILABLE", "The server is shutting down; send the message again once it is back.");
    const profile = await messageTarget(this.deps.storage, agentId, conversationId);
    await checkRunnable(profile, this.deps);
    return this.queueMessage(profile, false, message, conversationId, createdBy);
  }

  /** `sendMessage` with this profile (checked by the caller): the job carries it, and the worker runs it instead of the stored one. */
  async sendMessageAs(profile: AgentProfile, message: string, conversationId?: string, createdBy?: string): Promise<{ conversationId: string }> {
    if (this.stopping) throw new ServiceError("SERVICE_UNAVAILABLE", "The server is shutting down; send the message again once it is back.");
    return this.queueMessage(profile, true, message, conversationId, createdBy);
  }

  /** Marks the conversation busy and queues the message's job; `carry`: the job names the profile to run. */
  private async queueMessage(profile: AgentProfile, carry: boolean, message: string, conversationId: string | undefined, createdBy: string | undefined): Promise<{ conversationId: string }> {
    const { storage, redis } = this.deps;
    const agentId = profile.id;
    const id = conversationId ?? randomUUID();
    // The time leads the id, so another API can tell a marker whose job never reached the queue (see `markBusy`).
    const jobId = `${Date.now()}-${randomUUID()}`;
    await this.markBusy(agentId, id, jobId);
    try {
      // Created here, as AgentService creates it before answering: the conversation can be read and listed at once.
      if (conversationId === undefined) await storage.conversations.create({ id, title: profile.name, activeMode: "agent", agentId: profile.id });
      // Read while this message holds the busy marker: no loop appends to the conversation until its own starts.
      const messagesBefore = conversationId === undefined ? 0 : (await storage.conversations.messages(id)).length;
      const traceparent = activeTraceparent();
      const data: AgentJobData = {
        agentId,
        conversationId: id,
        message,
        ...(createdBy !== undefined ? { createdBy } : {}),
        messagesBefore,
        ...(carry ? { profile } : {}),
        ...(traceparent !== undefined ? { traceparent } : {}),
      };
      await this.jobs().add(AGENT_JOB, sealJob(this.deps.seal, AGENT_QUEUE, jobId, data), { jobId, attempts: 1, removeOnComplete: true, removeOnFail: { count: KEEP_FAILED_JOBS } });
    } catch (error) {
      await releaseAgentBusy(redis, id, jobId).catch(() => undefined);
      if (error instanceof ServiceError) throw error;
      this.deps.log.warn("queueing an agent message failed", { conversationId: id, error: messageOf(error) });
      throw new ServiceError("SERVICE_UNAVAILABLE", "The agent queue is unreachable; the message was not sent. Retry shortly.", { reason: "QUEUE_UNAVAILABLE" });
    }
    return { conversationId: id };
  }

  async conversation(conversationId: string): Promise<ConversationView> {
    // The loop's state before its messages: a loop appends its messages before it says it has finished, so a
    // finished state never comes with a log that lacks its last answer (read the other way round, it could).
    let live: AgentConversationState | undefined;
    let queued = false;
    try {
      const outcome = await this.ask(conversationId, "state");
      live = outcome.held && outcome.value !== null ? AgentConversationStateSchema.parse(outcome.value) : undefined;
    } catch (error) {
      // Its holder is gone (killed; the loop is closed once another worker finds the job stalled) or Redis is away.
      this.deps.log.warn("reading an agent's live state failed; answering from storage", { conversationId, error: messageOf(error) });
    }
    // Queued, or held by a worker that is gone and not yet found stalled: running until a worker says otherwise.
    if (!live) queued = (await this.deps.redis.get(agentBusyKey(conversationId)).catch(() => null)) !== null;
    const { view, session } = await storedConversation(this.deps.storage, conversationId);
    const agent = live ?? (session ? storedAgentState(session, { running: queued, withReason: true }) : queued ? { status: "running" as const, running: true, pendingPermissions: [] } : undefined);
    return { ...view, ...(agent ? { agent } : {}) };
  }

  fork(conversationId: string): Promise<{ conversationId: string }> {
    // The fork's loop would have to run on a worker, and agent jobs carry a user's message only.
    return Promise.reject(
      new ServiceError("CONFLICT", `Conversation "${conversationId}" cannot be forked on this server: forking an agent conversation is not available in queue mode (WEFT_REDIS_URL) yet.`, {
        reason: "QUEUE_MODE",
      }),
    );
  }

  listConversations(agentId: string, limit: number): Promise<Conversation[]> {
    return listAgentConversations(this.deps.storage, agentId, limit);
  }

  async cancel(conversationId: string): Promise<void> {
    const { storage, redis } = this.deps;
    const what = `cancel conversation "${conversationId}"`;
    const jobId = await this.queueCall(what, () => redis.get(agentBusyKey(conversationId)));
    if (jobId === null) {
      if (!(await storage.conversations.get(conversationId))) throw notFound("conversation", conversationId);
      return;
    }
    // Read by the worker that takes the job if none holds the loop yet; the one holding it is asked below.
    await this.queueCall(what, () => redis.set(agentCancelKey(jobId), this.deps.seal.wrap(agentCancelKey(jobId), jobId), "EX", AGENT_CANCEL_KEY_SECONDS));
    try {
      await this.ask(conversationId, "cancel");
    } catch (error) {
      // Its holder is gone: the worker that takes the stalled job over closes the loop without running it.
      if (!(error instanceof ServiceError && error.code === "SERVICE_UNAVAILABLE")) throw error;
    }
  }

  async answerPermission(conversationId: string, requestId: string, answer: PermissionAnswer): Promise<void> {
    const outcome = await this.ask(conversationId, "answerPermission", { requestId, answer });
    if (outcome.held) return;
    if (!(await this.deps.storage.conversations.get(conversationId))) throw notFound("conversation", conversationId);
    throw notFound("permission request", requestId, "Nothing in this conversation waits for permission now.");
  }

  async shutdown(): Promise<void> {
    // The loops belong to the workers: nothing here to finish.
    this.stopping = true;
    await this.queue?.close().catch(() => undefined);
  }

  private ask(conversationId: string, op: AgentControlOp, args: unknown = null) {
    return this.queueCall(`reach the worker running conversation "${conversationId}"`, () => this.deps.control.call("agent", conversationId, op, args));
  }

  /** A Redis command whose failure (Redis away) answers 503; the holder's own refusals pass through. */
  private queueCall<T>(what: string, command: () => Promise<T>): Promise<T> {
    return whileQueueReachable("agent queue", what, command);
  }

  private jobs(): Queue<SealedJob<AgentJobData>> {
    if (this.queue) return this.queue;
    const queue = new Queue<SealedJob<AgentJobData>>(AGENT_QUEUE, { connection: bullConnection(this.deps.redisUrl, "fail-fast"), prefix: QUEUE_PREFIX });
    queue.on("error", errorReporter("agent queue", this.deps.log));
    return (this.queue = queue);
  }

  /**
   * Marks the conversation busy for `jobId`, or refuses (CONFLICT) while another loop is queued or running in it.
   * A loop that has finished (its `agent.finished` sent, its state no longer running) still holds the marker
   * until its worker lets go of it: a message sent in that moment waits for it rather than being refused.
   */
  private async markBusy(agentId: string, conversationId: string, jobId: string): Promise<void> {
    const { redis } = this.deps;
    const key = agentBusyKey(conversationId);
    const giveUpAt = Date.now() + FINISHING_WAIT_MS;
    for (let attempt = 0; ; attempt++) {
      if ((await this.queueCall(SEND, () => redis.set(key, jobId, "NX"))) === "OK") return;
      const holder = await this.queueCall(SEND, () => redis.get(key));
      if (holder === null && Date.now() < giveUpAt) continue;
      if (holder === null) throw busyError(agentId, conversationId);
      if (attempt < 2 && (await this.isStale(holder))) {
        this.deps.log.warn("dropped a conversation's busy marker whose message never reached the queue", { conversationId });
        await this.queueCall(SEND, () => releaseAgentBusy(redis, conversationId, holder));
        continue;
      }
      if (Date.now() >= giveUpAt || !(await this.isFinishing(conversationId, holder))) throw busyError(agentId, conversationId);
      await Bun.sleep(FINISHING_POLL_MS);
    }
  }

  /** Whether the loop of the marker's job has ended and only its worker's letting go of the marker is left. */
  private async isFinishing(conversationId: string, holderJobId: string): Promise<boolean> {
    const outcome = await this.ask(conversationId, "state").catch(() => undefined);
    if (outcome?.held) return outcome.value !== null && !AgentConversationStateSchema.parse(outcome.value).running;
    // Not held: queued for a worker (refused), or past its worker's hold and about to drop the marker.
    const state = await this.queueCall(SEND, () => this.jobs().getJobState(holderJobId));
    return state !== "waiting" && state !== "delayed" && state !== "prioritized" && state !== "waiting-children";
  }

  private async isStale(jobId: string): Promise<boolean> {
    const markedAt = Number(jobId.split("-", 1)[0]);
    if (!Number.isFinite(markedAt) || Date.now() - markedAt < STALE_MARKER_MS) return false;
    const state = await this.queueCall(SEND, () => this.jobs().getJobState(jobId));
    return state === "unknown" || state === "completed" || state === "failed";
  }
}
