import type { Redis } from "ioredis";
import { z } from "zod";
import { PermissionAnswerSchema } from "@weft/types";
import { serviceErrorFromWire, serviceErrorWire, ServiceErrorWireSchema } from "../service-error.ts";
import type { QueueSeal } from "./queue-seal.ts";

/**
 * What an API process asks the worker holding a scene (through `control-rpc.ts`): the op is the
 * call's `op`, the rest its `args`. Both sides read them with this one schema.
 */
export const SceneControlSchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("state") }),
  z.object({ op: z.literal("pause") }),
  z.object({ op: z.literal("resume") }),
  z.object({ op: z.literal("stop") }),
  z.object({ op: z.literal("forget") }),
  z.object({ op: z.literal("sendMessage"), to: z.string(), text: z.string() }),
  z.object({ op: z.literal("answerQuestion"), instanceId: z.string(), text: z.string() }),
  z.object({ op: z.literal("answerPermission"), instanceId: z.string(), requestId: z.string(), answer: PermissionAnswerSchema }),
]);
export type SceneControl = z.infer<typeof SceneControlSchema>;

/**
 * How the start of a new session went on the worker, for the API request waiting for it: read by
 * polling a short-lived key named after the request (the worker may answer before or after the API
 * looks, and several API processes may wait at once). Sealed: an outcome the worker did not write is ignored.
 */
const StartOutcomeSchema = z.discriminatedUnion("ok", [z.object({ ok: z.literal(true) }), ServiceErrorWireSchema.extend({ ok: z.literal(false) })]);
type StartOutcome = z.infer<typeof StartOutcomeSchema>;

const startKey = (requestId: string) => `weft:scene-start:${requestId}`;
/** Long enough for any waiting request to read it; the key is not needed after that. */
const START_OUTCOME_TTL_S = 600;

/** The worker's side: the scene started (no `error`), or why not (a `ServiceError` keeps its code). */
export async function reportStart(redis: Redis, seal: QueueSeal, requestId: string | undefined, error?: unknown): Promise<void> {
  if (requestId === undefined) return;
  const outcome: StartOutcome = error === undefined ? { ok: true } : { ok: false, ...serviceErrorWire(error, "The worker could not start the scene") };
  await redis.set(startKey(requestId), seal.wrap(startKey(requestId), outcome), "EX", START_OUTCOME_TTL_S);
}

/** The API's side: true once the worker reported the scene started, false while it has reported nothing; throws the refusal it reported. */
export async function readStart(redis: Redis, seal: QueueSeal, requestId: string): Promise<boolean> {
  const text = await redis.get(startKey(requestId));
  if (text === null) return false;
  const outcome = seal.unwrap(startKey(requestId), text, StartOutcomeSchema, "a scene's start outcome", { maxAgeMs: START_OUTCOME_TTL_S * 1000 });
  if (outcome === undefined) return false;
  if (!outcome.ok) throw serviceErrorFromWire(outcome);
  return true;
}
