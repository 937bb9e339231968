import { availableParallelism } from "node:os";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { messageOf, NodeFailure, type NodeError } from "@weft/types";
import type { SandboxLimits } from "./quickjs-sandbox.ts";

/** What a thread is asked to run. */
export interface CodeJob {
  code: string;
  input: unknown;
  limits: SandboxLimits;
}

/** `stop`: one Int32 the pool sets to 1 when it gives up on the thread's code; the thread's QuickJS checks it. */
export type WorkerRequest = { kind: "init"; quickJs: WebAssembly.Module; stop: SharedArrayBuffer } | ({ kind: "run"; id: number } & CodeJob);

export type WorkerReply =
  | { kind: "ready" }
  | { kind: "log"; id: number; line: string }
  | { kind: "done"; id: number; json: string | undefined }
  /** `renew`: the thread must not take another job (its heap grew to the limit, or QuickJS failed). */
  | { kind: "failed"; id: number; error: NodeError; renew: boolean };

export interface CodeCall {
  /** Wall-clock time the code may run once a thread has taken it (waiting in line does not count). */
  timeoutMs: number;
  /** Aborting it takes the job out of the line, or terminates the thread running it. */
  signal?: AbortSignal;
  /** Each console line as the thread sends it, while the code still runs. */
  onLog?: (line: string) => void;
}

export interface CodeResult {
  /** What the code returned, parsed from its JSON (undefined when it returned nothing). */
  value: unknown;
  logs: string[];
}

export interface CodeWorkersOptions {
  /** Most threads running code at once; more calls wait in line. */
  size: number;
  /** The thread's script (tests give one of their own). Default `sandbox-worker.ts`. */
  script?: string;
}

interface Job {
  id: number;
  job: CodeJob;
  call: CodeCall;
  logs: string[];
  timer?: ReturnType<typeof setTimeout>;
  settle(outcome: { value: unknown } | { failure: NodeFailure }): void;
}

interface Thread {
  worker: Worker;
  stop: Int32Array;
  ready: boolean;
  running?: Job;
}

const cancelled = () => new NodeFailure("CANCELLED", "The code was stopped: the run was cancelled.");
const timedOut = (timeoutMs: number) =>
  new NodeFailure("CODE_TIMEOUT", `The code ran longer than its ${timeoutMs} ms limit and was stopped. Look for an endless loop, or raise timeoutMs.`, { timeoutMs });

/**
 * Runs `code:javascript` jobs on a bounded set of threads, so user code never holds the server's event
 * loop. Threads start when first needed and stay warm (QuickJS compiled once each) for the next calls;
 * calls beyond `size` wait in line. At the time limit, or when the call is cancelled, the thread is
 * terminated — whatever the code is doing — and a fresh one started in its place; so is a thread whose
 * code hit its memory limit (its WebAssembly heap grew and would not shrink) or broke QuickJS. A thread keeps the process
 * alive only while it owes an answer: awaiting an unreferenced thread's reply, a process with nothing else
 * to wait for (a command) kept Bun's event loop spinning at full CPU, and an idle thread must not hold a
 * finished command open.
 */
export class CodeWorkers {
  private readonly threads = new Set<Thread>();
  private readonly line: Job[] = [];
  private nextId = 1;
  private readonly script: string;
  private compiled: Promise<WebAssembly.Module> | undefined;

  constructor(private readonly options: CodeWorkersOptions) {
    this.script = options.script ?? new URL("./sandbox-worker.ts", import.meta.url).href;
  }

  run(job: CodeJob, call: CodeCall): Promise<CodeResult> {
    const { signal } = call;
    if (signal?.aborted) return Promise.reject(cancelled());
    return new Promise((resolve, reject) => {
      const queued: Job = {
        id: this.nextId++,
        job,
        call,
        logs: [],
        settle: (outcome) => {
          clearTimeout(queued.timer);
          signal?.removeEventListener("abort", onAbort);
          if ("failure" in outcome) reject(outcome.failure);
          else resolve({ value: outcome.value, logs: queued.logs });
        },
      };
      const onAbort = () => this.cancel(queued);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.line.push(queued);
      this.dispatch();
    });
  }

  /**
   * Terminates the threads that run no code now (a server stopping: its own runs were cancelled first). A thread
   * still running code finishes its job (at most its time limit) and then idles without keeping the process alive;
   * calls after this start threads again.
   */
  close(): void {
    for (const thread of this.threads) if (!thread.running) this.retire(thread);
  }

  private dispatch(): void {
    for (const thread of this.threads) {
      const next = thread.ready && !thread.running ? this.line.shift() : undefined;
      if (next) this.start(thread, next);
    }
    let starting = [...this.threads].filter((thread) => !thread.ready).length;
    while (starting < this.line.length && this.threads.size < this.options.size) {
      this.spawn();
      starting++;
    }
  }

  private start(thread: Thread, job: Job): void {
    thread.running = job;
    keepsAlive(thread.worker, true);
    job.timer = setTimeout(() => this.stop(thread, timedOut(job.call.timeoutMs)), job.call.timeoutMs);
    const request: WorkerRequest = { kind: "run", id: job.id, ...job.job };
    thread.worker.postMessage(request);
  }

  private spawn(): void {
    // Referenced while it starts (a call may be waiting for it), unreferenced once it idles.
    const worker = new Worker(this.script, { ref: true });
    const thread: Thread = { worker, stop: new Int32Array(new SharedArrayBuffer(4)), ready: false };
    worker.onmessage = (event: MessageEvent<WorkerReply>) => this.receive(thread, event.data);
    worker.onerror = (event: ErrorEvent) => this.lost(thread, `its thread failed: ${event.message}`);
    // Ended without an error while still in use (not terminated by this pool).
    worker.addEventListener("close", () => this.lost(thread, "its thread ended"));
    this.threads.add(thread);
    this.compiled ??= compileQuickJs();
    this.compiled.then(
      (quickJs) => worker.postMessage({ kind: "init", quickJs, stop: thread.stop.buffer as SharedArrayBuffer } satisfies WorkerRequest),
      (error: unknown) => this.lost(thread, `QuickJS could not be compiled: ${messageOf(error)}`),
    );
  }

  private receive(thread: Thread, reply: WorkerReply): void {
    switch (reply.kind) {
      case "ready":
        thread.ready = true;
        if (!thread.running) keepsAlive(thread.worker, false);
        this.dispatch();
        return;
      case "log": {
        const job = thread.running;
        if (job?.id !== reply.id) return;
        job.logs.push(reply.line);
        job.call.onLog?.(reply.line);
        return;
      }
      case "done":
        this.finish(thread, reply.id, { value: reply.json === undefined ? undefined : JSON.parse(reply.json) });
        return;
      case "failed": {
        const { code, message, details } = reply.error;
        this.finish(thread, reply.id, { failure: new NodeFailure(code, message, details) }, reply.renew);
        return;
      }
      default: {
        const never: never = reply;
        return never;
      }
    }
  }

  /** The thread answered its job; `renew`: a fresh thread takes its place. */
  private finish(thread: Thread, id: number, outcome: { value: unknown } | { failure: NodeFailure }, renew = false): void {
    const job = thread.running;
    if (job?.id !== id) return;
    thread.running = undefined;
    if (renew) this.replace(thread);
    else keepsAlive(thread.worker, false);
    job.settle(outcome);
    this.dispatch();
  }

  private cancel(job: Job): void {
    const waiting = this.line.indexOf(job);
    if (waiting >= 0) {
      this.line.splice(waiting, 1);
      job.settle({ failure: cancelled() });
      return;
    }
    for (const thread of this.threads) if (thread.running === job) this.stop(thread, cancelled());
  }

  /** Ends the thread's job with `failure`, whatever its code is doing, and puts a fresh thread in its place. */
  private stop(thread: Thread, failure: NodeFailure): void {
    const job = thread.running;
    thread.running = undefined;
    this.replace(thread);
    job?.settle({ failure });
    this.dispatch();
  }

  private replace(thread: Thread): void {
    this.retire(thread);
    this.spawn();
  }

  private retire(thread: Thread): void {
    this.threads.delete(thread);
    // Ends a loop inside QuickJS, where the terminate alone may not reach (quickjs-sandbox.ts).
    Atomics.store(thread.stop, 0, 1);
    thread.worker.terminate();
  }

  /** A thread that failed or ended on its own: its job fails; one that never started fails the calls waiting too. */
  private lost(thread: Thread, why: string): void {
    if (!this.threads.has(thread)) return;
    this.retire(thread);
    const failure = new NodeFailure("CODE_ERROR", `The code could not be run: ${why}.`);
    const job = thread.running;
    thread.running = undefined;
    job?.settle({ failure });
    if (!thread.ready) for (const waiting of this.line.splice(0)) waiting.settle({ failure });
    this.dispatch();
  }
}

/** QuickJS's WebAssembly, compiled once for every thread (the file quickjs-emscripten's release build loads). */
async function compileQuickJs(): Promise<WebAssembly.Module> {
  const file = Bun.resolveSync("@jitl/quickjs-wasmfile-release-sync/wasm", Bun.resolveSync("quickjs-emscripten", dirname(fileURLToPath(import.meta.url))));
  return WebAssembly.compile(await Bun.file(file).arrayBuffer());
}

/** Bun's `Worker` keeps the process alive or not, like a timer (`ref`/`unref`; the DOM's `Worker` type has neither). */
function keepsAlive(worker: Worker, on: boolean): void {
  const referable = worker as Worker & { ref(): void; unref(): void };
  if (on) referable.ref();
  else referable.unref();
}

/** The threads every `code:javascript` node in this process shares: as many as the machine has cores (at least 2, at most 8). */
export const codeWorkers = new CodeWorkers({ size: Math.min(8, Math.max(2, availableParallelism())) });
