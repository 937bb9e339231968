import { createHmac, hkdfSync, randomUUID, timingSafeEqual } from "node:crypto";
import { UnrecoverableError } from "bullmq";
import { z } from "zod";
import { messageOf, type Logger, type SecretRedactor } from "@weft/types";
import { loadMasterKey } from "../secrets/master-key.ts";

/**
 * Why a job or message on Redis was dropped (the label of `weft_queue_rejected_total`): it carried no
 * seal, its seal did not match its content (forged, tampered, signed with another installation's key),
 * it was older than its purpose allows, its seal id was seen before, or it was not Weft's shape at all.
 */
export const QUEUE_REJECT_REASONS = ["unsigned", "bad_signature", "stale", "replayed", "malformed"] as const;
export type QueueRejectReason = (typeof QUEUE_REJECT_REASONS)[number];

/** A seal: a unique id (replays), when it was made (staleness) and the HMAC-SHA256 over both, its purpose and its content. */
export const SealSchema = z.object({ id: z.string().min(1).max(64), ts: z.number().int(), sig: z.string().length(43) });
export type Seal = z.infer<typeof SealSchema>;

/**
 * How long a pub/sub message or control call is accepted after it was sealed, either way (clocks of
 * two machines differ): it is delivered within milliseconds, so a minute is slack for skew only.
 */
export const MESSAGE_MAX_AGE_MS = 60_000;

/** What a verification accepts: `maxAgeMs` (none: any age, the job's stored state decides) and `once` (its seal id is remembered and refused again). */
export interface SealPolicy {
  maxAgeMs?: number;
  once?: boolean;
}

/** A pub/sub message or key value as it travels: the body as text (signed as is, no re-serialising) and its seal. */
const EnvelopeSchema = z.object({ body: z.string(), seal: SealSchema });

/** The queue key: HKDF of the installation's master key, so no process stores it and Redis never sees it. */
export function deriveQueueKey(masterKey: Buffer): Buffer {
  return Buffer.from(hkdfSync("sha256", masterKey, "weft/queue", "weft queue seal v1", 32));
}

/** The seal of this installation's processes: the key comes from WEFT_SECRET or `<dataDir>/master.key`, as the secrets' key does. */
export function installationSeal(dataDir: string, secret: string | undefined, redactor: SecretRedactor, log: Logger): QueueSeal {
  return new QueueSeal(deriveQueueKey(loadMasterKey(dataDir, secret, redactor)), log);
}

/**
 * JSON with sorted keys and no `undefined`s: a job's data comes back from Redis through JSON, so both
 * sides must serialise it the same way whatever the order of its keys.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v: unknown) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const parts: string[] = [];
    for (const key of Object.keys(record).sort()) if (record[key] !== undefined) parts.push(`${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${parts.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * Signs and checks everything Weft's processes put on Redis (jobs, control calls and replies, pub/sub
 * announcements, signal keys), so a process that can reach Redis but does not hold the installation's
 * secret cannot make a worker run anything, nor an API believe anything. The seal covers the purpose
 * (the channel, key or queue and job id it was made for: a seal cannot be moved to another), the time,
 * a unique id and the content, which names the principal (`createdBy`, `startedBy`). Each rejection is
 * logged once and counted by reason (`/metrics`).
 */
export class QueueSeal {
  private readonly counts = new Map<QueueRejectReason, number>(QUEUE_REJECT_REASONS.map((r) => [r, 0]));
  /** Seal ids seen within the last one or two `MESSAGE_MAX_AGE_MS`: a message older than that is stale anyway. */
  private seen = new Set<string>();
  private seenBefore = new Set<string>();
  private rotatedAt: number;

  constructor(
    private readonly key: Buffer,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.rotatedAt = now();
  }

  seal(purpose: string, content: string): Seal {
    const id = randomUUID();
    const ts = this.now();
    return { id, ts, sig: this.mac(purpose, id, ts, content) };
  }

  /** `body` as text, sealed for `purpose`: what goes on a channel or into a key. */
  wrap(purpose: string, body: unknown): string {
    const text = JSON.stringify(body);
    return JSON.stringify({ body: text, seal: this.seal(purpose, text) });
  }

  /** The body of a `wrap`ped text read with `schema`, or undefined (logged, counted) when it is not Weft's, not sealed for `purpose`, stale or replayed. */
  unwrap<T>(purpose: string, text: string, schema: z.ZodType<T>, what: string, policy: SealPolicy): T | undefined {
    let envelope: unknown;
    try {
      envelope = JSON.parse(text);
    } catch {
      // Not even JSON (a bare run id, as older versions sent a cancel): nothing sealed it.
      return this.reject("unsigned", what);
    }
    const parsed = EnvelopeSchema.safeParse(envelope);
    if (!parsed.success) return this.reject(isObject(envelope) && "seal" in envelope ? "malformed" : "unsigned", what);
    const { body, seal } = parsed.data;
    if (!this.verify(purpose, body, seal, what, policy)) return undefined;
    try {
      return schema.parse(JSON.parse(body));
    } catch (error) {
      return this.reject("malformed", what, messageOf(error));
    }
  }

  /** Checks `seal` over `content` for `purpose`; a failure is logged as `what` and counted. */
  verify(purpose: string, content: string, seal: unknown, what: string, policy: SealPolicy): boolean {
    const parsed = SealSchema.safeParse(seal);
    if (!parsed.success) return this.refuse(seal === undefined ? "unsigned" : "malformed", what);
    const { id, ts, sig } = parsed.data;
    const expected = Buffer.from(this.mac(purpose, id, ts, content));
    const given = Buffer.from(sig);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return this.refuse("bad_signature", what);
    const now = this.now();
    if (policy.maxAgeMs !== undefined && Math.abs(now - ts) > policy.maxAgeMs) return this.refuse("stale", what);
    if (policy.once) {
      this.rotate(now);
      if (this.seen.has(id) || this.seenBefore.has(id)) return this.refuse("replayed", what);
      this.seen.add(id);
    }
    return true;
  }

  /** Logs and counts a rejection found by the caller (a job replayed against its stored state). */
  reject(reason: QueueRejectReason, what: string, detail?: string): undefined {
    this.counts.set(reason, (this.counts.get(reason) ?? 0) + 1);
    this.log.warn(`dropped ${what} from Redis: ${REASON_TEXT[reason]}`, { reason, ...(detail !== undefined ? { detail } : {}) });
    return undefined;
  }

  private refuse(reason: QueueRejectReason, what: string): false {
    this.reject(reason, what);
    return false;
  }

  /** Rejections so far by reason, every reason present (for `/metrics`). */
  rejected(): ReadonlyMap<QueueRejectReason, number> {
    return this.counts;
  }

  private mac(purpose: string, id: string, ts: number, content: string): string {
    return createHmac("sha256", this.key).update(`weft-queue-v1\n${purpose}\n${id}\n${ts}\n`).update(content).digest("base64url");
  }

  /** Keeps seal ids for at least `MESSAGE_MAX_AGE_MS`: two generations, the older dropped when the newer is that old. */
  private rotate(now: number): void {
    if (now - this.rotatedAt < MESSAGE_MAX_AGE_MS) return;
    this.seenBefore = this.seen;
    this.seen = new Set();
    this.rotatedAt = now;
  }
}

const REASON_TEXT: Record<QueueRejectReason, string> = {
  unsigned: "it carries no seal (written by something that is not a Weft process of this installation, or an older version)",
  bad_signature: "its seal does not match its content (forged, altered, or signed with another installation's secret)",
  stale: "it was sealed too long ago (a replay, or this machine's clock differs from the sender's by over a minute)",
  replayed: "it was already received once (a replay)",
  malformed: "it is not in Weft's format",
};

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object";
}

/** A job's data as it is stored in Redis: the data itself plus its seal. */
export type SealedJob<T> = T & { seal: Seal };

/** The purpose a job's seal is made for: its queue and its id, so a sealed job cannot be re-added under another id or queue. */
const jobPurpose = (queue: string, jobId: string) => `job:${queue}:${jobId}`;

/** `data` sealed for the job `jobId` of `queue` (the seal covers every field: the principal, `createdBy` or `startedBy`, with the rest). */
export function sealJob<T extends object>(seal: QueueSeal, queue: string, jobId: string, data: T): SealedJob<T> {
  return { ...data, seal: seal.seal(jobPurpose(queue, jobId), canonicalJson(data)) };
}

/**
 * Thrown by a worker for a job it refuses (unsigned, tampered, stale, replayed): BullMQ fails it at once,
 * without a retry; the rejection was logged and counted already.
 */
export class RejectedJobError extends UnrecoverableError {
  constructor(what: string) {
    super(`${what} was refused: its seal is missing, wrong, stale or replayed (see the warning logged with it)`);
    this.name = "RejectedJobError";
  }
}

/** A job's data, checked: its seal for `queue` and the job's id, then `schema`. Throws `RejectedJobError` (logged and counted) otherwise. */
export function openJob<T>(seal: QueueSeal, queue: string, job: { id?: string; data: unknown }, schema: z.ZodType<T>, what: string, policy: SealPolicy = {}): T {
  const stored = isObject(job.data) ? job.data : {};
  const { seal: given, ...content } = stored;
  if (job.id === undefined || !seal.verify(jobPurpose(queue, job.id), canonicalJson(content), given, what, policy)) throw new RejectedJobError(what);
  const parsed = schema.safeParse(content);
  if (!parsed.success) {
    seal.reject("malformed", what, parsed.error.message);
    throw new RejectedJobError(what);
  }
  return parsed.data;
}
