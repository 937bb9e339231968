/**
 * A thread `CodeWorkers` starts: it instantiates QuickJS from the module it is sent, says it is ready, then runs one job at a time
 * (`runInSandbox`), sending each console line as it is written and then the result or the failure. It
 * never stops the code by itself: at the time limit or on a cancel the pool raises the thread's stop flag
 * (which QuickJS's interrupt check reads) and terminates the thread.
 */
import { setPriority } from "node:os";
import { messageOf, NodeFailure } from "@weft/types";
import { loadQuickJs, runInSandbox } from "./quickjs-sandbox.ts";
import type { WorkerReply, WorkerRequest } from "./code-workers.ts";

declare const self: Worker;

// This thread only (Linux priorities are per thread): when code spins on every core, the event loop comes first.
try {
  setPriority(5);
} catch {
  // not allowed here: normal priority
}

const reply = (message: WorkerReply) => postMessage(message);
let stopFlag: Int32Array | undefined;
const stopped = () => stopFlag !== undefined && Atomics.load(stopFlag, 0) !== 0;

self.onmessage = async (event: MessageEvent<WorkerRequest>) => {
  const request = event.data;
  if (request.kind === "init") {
    stopFlag = new Int32Array(request.stop);
    await loadQuickJs(request.quickJs);
    reply({ kind: "ready" });
    return;
  }
  const { id, code, input, limits } = request;
  try {
    const run = await runInSandbox(code, input, limits, (line) => reply({ kind: "log", id, line }), stopped);
    reply({ kind: "done", id, json: run.json });
  } catch (error) {
    if (error instanceof NodeFailure) {
      // The heap grew to the limit and WebAssembly memory never shrinks: a fresh thread takes the next job.
      reply({ kind: "failed", id, error: error.toNodeError(), renew: error.code === "CODE_MEMORY_LIMIT" });
      return;
    }
    // QuickJS itself failed (e.g. an emscripten abort): this thread's module is unusable from now on.
    reply({ kind: "failed", id, error: { code: "CODE_ERROR", message: `The code could not be run, the sandbox failed: ${messageOf(error)}` }, renew: true });
  }
};
