import { engineError, engineFailure, NodeFailure, type NodeError, type NodeValues, type Observation } from "@weft/types";
import type { ResolvedPolicy } from "./compiled-graph.ts";
import type { RunEventEmitter } from "./run-event-emitter.ts";
import { jsonSizeUpTo, outputTooLarge } from "./output-size.ts";

/** What `execute` gave back, or what it threw. */
export type CallResult = { threw: false; value: unknown } | { threw: true; error: unknown };

export type InvocationOutcome = { kind: "completed"; outputs: NodeValues } | { kind: "failed"; error: NodeError } | { kind: "cancelled"; error: NodeError };

/** What the attempt loop needs from the graph run. */
export interface AttemptHost {
  /** Aborted when the run is cancelled or stopped. */
  readonly runSignal: AbortSignal;
  readonly emitter: RunEventEmitter;
  /** A node's streamed chunks together may take this many bytes (`output-size.ts`). */
  readonly maxOutputBytes: number;
  /** Starts one attempt: a fresh context whose signal is `signal`, then `execute`. */
  call(signal: AbortSignal): CallResult;
  /** A timed-out attempt that may still be running: the run waits for it (bounded) before it ends. */
  abandon(work: Promise<unknown>): void;
  /**
   * When the run is traced: runs `step` in the node's span context. A streaming node's body runs at each `next()`,
   * not when `execute` returned its generator, so each step is resumed there (what it calls then nests under the node).
   */
  inContext?<T>(step: () => T): T;
}

export type ResultKind = "outputs" | "promise" | "stream" | "invalid";

export function classifyResult(value: unknown): ResultKind {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "invalid";
  const v = value as { then?: unknown; [Symbol.asyncIterator]?: unknown };
  if (typeof v.then === "function") return "promise";
  if (typeof v[Symbol.asyncIterator] === "function") return "stream";
  return "outputs";
}

export function invalidOutputsError(value: unknown): NodeError {
  const got = value === undefined ? "nothing" : value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
  return engineError("INVALID_OUTPUT", `the node returned ${got} instead of an object of outputs by port id`);
}

function checkOutputs(value: unknown): NodeValues {
  if (classifyResult(value) === "outputs") return value as NodeValues;
  throw engineFailure("INVALID_OUTPUT", invalidOutputsError(value).message);
}

/** A NodeFailure keeps its code (also one from another copy of the types package); anything else is NODE_ERROR. */
export function toNodeError(err: unknown): NodeError {
  if (err instanceof NodeFailure) return err.toNodeError();
  const code: unknown = err instanceof Error && err.name === "NodeFailure" ? (err as Error & { code?: unknown }).code : undefined;
  if (err instanceof Error && typeof code === "string") return { code, message: err.message };
  if (err instanceof Error) return engineError("NODE_ERROR", err.message || err.name);
  return engineError("NODE_ERROR", typeof err === "string" ? err : `the node threw ${String(err)}`);
}

function cancelledError(signal: AbortSignal): NodeError {
  const reason: unknown = signal.reason;
  if (reason instanceof NodeFailure) return reason.toNodeError();
  return engineError("CANCELLED", reason instanceof Error ? reason.message : "the run was cancelled");
}

/** An AbortController for one attempt that also follows the run's signal. */
export class AttemptSignal {
  readonly controller = new AbortController();
  private readonly follow: (() => void) | undefined;

  constructor(private readonly runSignal: AbortSignal) {
    if (runSignal.aborted) this.controller.abort(runSignal.reason);
    else {
      this.follow = () => this.controller.abort(runSignal.reason);
      runSignal.addEventListener("abort", this.follow, { once: true });
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  dispose(): void {
    if (this.follow) this.runSignal.removeEventListener("abort", this.follow);
  }
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

async function drainStream(stream: AsyncIterable<unknown>, host: AttemptHost, obs: Observation, signal: AbortSignal): Promise<NodeValues> {
  const it = stream[Symbol.asyncIterator]() as AsyncIterator<unknown, unknown>;
  let finished = false;
  let chunkBytes = 0;
  const limit = host.maxOutputBytes;
  const inContext = host.inContext;
  try {
    for (;;) {
      const step = await (inContext ? inContext(() => it.next()) : it.next());
      if (step.done) {
        finished = true;
        return checkOutputs(step.value);
      }
      chunkBytes = jsonSizeUpTo(step.value, limit - chunkBytes) + chunkBytes;
      if (chunkBytes > limit) {
        const error = outputTooLarge("chunks", [...obs.chunks, step.value], limit);
        throw new NodeFailure(error.code, error.message, error.details);
      }
      const index = obs.chunks.length;
      if (Object.isFrozen(obs.chunks)) obs.chunks = [];
      obs.chunks.push(step.value);
      if (host.emitter.enabled) host.emitter.emit({ type: "node.chunk", nodeId: obs.nodeId, invocationId: obs.invocationId, index, chunk: step.value });
      if (signal.aborted) throw signal.reason;
    }
  } catch (err) {
    finished = true; // a generator that threw is already closed
    throw err;
  } finally {
    // Let a generator we stop early run its cleanup; never wait on it.
    if (!finished) Promise.resolve(it.return?.(undefined)).catch(() => undefined);
  }
}

function raceTimeout(work: Promise<NodeValues>, ms: number, attempt: AttemptSignal, host: AttemptHost): Promise<NodeValues> {
  return new Promise((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      const failure = engineFailure("TIMEOUT", `the node did not finish within ${ms} ms (policy.timeoutMs)`, { timeoutMs: ms });
      reject(failure);
      attempt.controller.abort(failure);
      host.abandon(work);
    }, ms);
    work.then(
      (outputs) => {
        if (timedOut) return;
        clearTimeout(timer);
        resolve(outputs);
      },
      (err: unknown) => {
        if (timedOut) return;
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

function settleAttempt(host: AttemptHost, obs: Observation, call: CallResult, attempt: AttemptSignal | undefined, timeoutMs: number | undefined): Promise<NodeValues> {
  if (call.threw) return Promise.reject(call.error);
  const value = call.value;
  let work: Promise<NodeValues>;
  switch (classifyResult(value)) {
    case "outputs":
      return Promise.resolve(value as NodeValues);
    case "invalid":
      return Promise.reject(engineFailure("INVALID_OUTPUT", invalidOutputsError(value).message));
    case "promise":
      work = Promise.resolve(value).then(checkOutputs);
      break;
    case "stream":
      work = drainStream(value as AsyncIterable<unknown>, host, obs, attempt?.signal ?? host.runSignal);
      break;
  }
  return timeoutMs === undefined || !attempt ? work : raceTimeout(work, timeoutMs, attempt, host);
}

/**
 * Settles a node invocation that did not finish synchronously: awaits it (streaming its chunks),
 * enforces the timeout per attempt, and retries with exponential backoff. Never rejects.
 */
export async function runAttempts(host: AttemptHost, obs: Observation, policy: ResolvedPolicy, firstCall: CallResult, firstSignal: AttemptSignal | undefined): Promise<InvocationOutcome> {
  let call = firstCall;
  let attemptSignal = firstSignal;
  for (let attempt = 1; ; attempt++) {
    let error: NodeError;
    try {
      return { kind: "completed", outputs: await settleAttempt(host, obs, call, attemptSignal, policy.timeoutMs) };
    } catch (err) {
      error = toNodeError(err);
    } finally {
      attemptSignal?.dispose();
    }
    if (host.runSignal.aborted) return { kind: "cancelled", error: cancelledError(host.runSignal) };
    if (attempt > policy.retries) return { kind: "failed", error };
    const delayMs = policy.retryBackoffMs * 2 ** (attempt - 1);
    if (host.emitter.enabled) host.emitter.emit({ type: "node.retrying", nodeId: obs.nodeId, invocationId: obs.invocationId, attempt: attempt + 1, delayMs, error });
    if (!(await sleep(delayMs, host.runSignal))) return { kind: "cancelled", error: cancelledError(host.runSignal) };
    obs.attempts = attempt + 1;
    if (host.emitter.enabled) {
      host.emitter.nodeStarted(obs.nodeId, obs.invocationId, obs.nodeType, obs.inputs, attempt + 1, Date.now());
    }
    attemptSignal = policy.timeoutMs !== undefined ? new AttemptSignal(host.runSignal) : undefined;
    call = host.call(attemptSignal?.signal ?? host.runSignal);
  }
}
