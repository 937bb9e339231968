import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { z } from "zod";
import { messageOf, type Logger } from "@weft/types";
import { ServiceError, serviceErrorFromWire, serviceErrorWire, ServiceErrorWireSchema } from "../service-error.ts";
import { deleteIfValue } from "./queue-names.ts";
import { MESSAGE_MAX_AGE_MS, type QueueSeal } from "./queue-seal.ts";

/**
 * Requests from an API process to the worker that holds a live thing — an agent's conversation or a
 * scene — in the queue mode: "cancel", "answer this permission", "pause"... A worker that takes such
 * a job records itself as the holder (`weft:holder:<kind>:<id>`) and listens on its own channel; the
 * API reads the holder, publishes there and waits for the answer on its own reply channel. Requests and
 * replies are sealed for the channel they go to: a forged request (a cancel, a permission answer) is
 * ignored by the worker, a forged reply by the API.
 */
export type HeldKind = "agent" | "scene";

export const holderKey = (kind: HeldKind, id: string) => `weft:holder:${kind}:${id}`;
const requestChannel = (origin: string) => `weft:control:${origin}`;
const replyChannel = (origin: string) => `weft:control-reply:${origin}`;

const HeldKindSchema = z.enum(["agent", "scene"]);
const ControlRequestSchema = z.object({ callId: z.string(), replyTo: z.string(), kind: HeldKindSchema, id: z.string(), op: z.string(), args: z.unknown() });
type ControlRequest = z.infer<typeof ControlRequestSchema>;

const ControlReplySchema = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), callId: z.string(), value: z.unknown() }),
  ServiceErrorWireSchema.extend({ ok: z.literal(false), callId: z.string() }),
]);
type ControlReply = z.infer<typeof ControlReplySchema>;

/** What a worker does with a request for something it holds; a thrown `ServiceError` reaches the caller with its code. */
export type ControlHandler = (kind: HeldKind, id: string, op: string, args: unknown) => Promise<unknown>;

/** The answer to a call: the value, or that no worker holds the thing now (the caller reads storage instead). */
export type ControlOutcome = { held: true; value: unknown } | { held: false };

/** The worker's side: holds things, answers requests about them. `subscriber` must be a connection of its own. */
export class ControlServer {
  constructor(
    readonly origin: string,
    private readonly redis: Redis,
    private readonly subscriber: Redis,
    private readonly handler: ControlHandler,
    private readonly seal: QueueSeal,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    this.subscriber.on("message", (channel: string, text: string) => {
      if (channel === requestChannel(this.origin)) void this.answer(text);
    });
    await this.subscriber.subscribe(requestChannel(this.origin));
  }

  /** Records this worker as the holder: requests about `id` come here from now on. */
  async hold(kind: HeldKind, id: string): Promise<void> {
    await this.redis.set(holderKey(kind, id), this.origin);
  }

  /** Only while the key still names this worker: another may have taken the thing over. */
  async release(kind: HeldKind, id: string): Promise<void> {
    await deleteIfValue(this.redis, holderKey(kind, id), this.origin);
  }

  async stop(): Promise<void> {
    await this.subscriber.quit().catch(() => undefined);
  }

  private async answer(text: string): Promise<void> {
    const request = this.seal.unwrap(requestChannel(this.origin), text, ControlRequestSchema, "a control request", { maxAgeMs: MESSAGE_MAX_AGE_MS, once: true });
    if (!request) return;
    let reply: ControlReply;
    try {
      reply = { ok: true, callId: request.callId, value: await this.handler(request.kind, request.id, request.op, request.args) };
    } catch (error) {
      reply = { ok: false, callId: request.callId, ...serviceErrorWire(error, `The worker could not ${request.op} ${request.kind} "${request.id}"`) };
    }
    await this.redis.publish(request.replyTo, this.seal.wrap(request.replyTo, reply)).catch((error: unknown) => this.log.warn("sending a control reply failed", { error: messageOf(error) }));
  }
}

/** How long a call waits for the holder's answer before it answers 503. */
const CALL_TIMEOUT_MS = 10_000;

/** The API's side: asks the holder. `subscriber` must be a connection of its own. */
export class ControlClient {
  private readonly waiting = new Map<string, (reply: ControlReply) => void>();
  private readonly replies: string;

  constructor(
    origin: string,
    private readonly redis: Redis,
    private readonly subscriber: Redis,
    private readonly seal: QueueSeal,
    private readonly timeoutMs = CALL_TIMEOUT_MS,
  ) {
    this.replies = replyChannel(origin);
  }

  async start(): Promise<void> {
    this.subscriber.on("message", (channel: string, text: string) => {
      if (channel !== this.replies) return;
      const reply = this.seal.unwrap(this.replies, text, ControlReplySchema, "a control reply", { maxAgeMs: MESSAGE_MAX_AGE_MS, once: true });
      if (reply) this.waiting.get(reply.callId)?.(reply);
    });
    await this.subscriber.subscribe(this.replies);
  }

  /** The worker holding `id` now, if any. */
  async holder(kind: HeldKind, id: string): Promise<string | undefined> {
    return (await this.redis.get(holderKey(kind, id))) ?? undefined;
  }

  /**
   * Sends `op` to the worker holding `id` and returns its answer; `{ held: false }` when nobody holds it.
   * Throws the holder's `ServiceError`, or SERVICE_UNAVAILABLE when it does not answer (killed, or Redis away).
   */
  async call(kind: HeldKind, id: string, op: string, args: unknown = null): Promise<ControlOutcome> {
    const holder = await this.holder(kind, id);
    if (holder === undefined) return { held: false };
    const callId = randomUUID();
    const request: ControlRequest = { callId, replyTo: this.replies, kind, id, op, args };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const reply = new Promise<ControlReply | undefined>((resolve) => {
      this.waiting.set(callId, resolve);
      timer = setTimeout(() => resolve(undefined), this.timeoutMs);
    });
    try {
      const listeners = await this.redis.publish(requestChannel(holder), this.seal.wrap(requestChannel(holder), request));
      // Nobody listens on the holder's channel: it stopped without releasing (killed) and no worker has taken over yet.
      const answer = listeners === 0 ? undefined : await reply;
      if (!answer)
        throw new ServiceError("SERVICE_UNAVAILABLE", `The worker holding ${kind} "${id}" does not answer (it may have been stopped); try again once another worker has taken it over.`, {
          kind,
          id,
          holder,
        });
      if (!answer.ok) throw serviceErrorFromWire(answer);
      return { held: true, value: answer.value };
    } finally {
      clearTimeout(timer);
      this.waiting.delete(callId);
    }
  }

  async stop(): Promise<void> {
    await this.subscriber.quit().catch(() => undefined);
  }
}
