import { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC, type QuickJSContext, type QuickJSHandle, type QuickJSWASMModule } from "quickjs-emscripten";
import { NodeFailure } from "@weft/types";

export interface SandboxLimits {
  memoryBytes: number;
  /** Most bytes of console output kept (each line counts one more for its end); more is dropped with a marker. */
  maxLogBytes: number;
}

export interface SandboxRun {
  /** What the code returned, as JSON text (undefined when it returned nothing). */
  json: string | undefined;
}

/** The file name QuickJS reports in stack traces; the user's line N is its line N + 1 (the wrapper's first line). */
const FILE = "code.js";
/**
 * QuickJS's own stack limit. Its frames also use the thread's native stack, smaller on a worker thread than on the
 * main one: at 384 KiB some recursions there overflowed the native stack first, which aborts the WebAssembly module.
 */
const STACK_BYTES = 256 * 1024;

let module: Promise<QuickJSWASMModule> | undefined;
/**
 * QuickJS, instantiated once per thread from `compiled` (the WebAssembly module `code-workers.ts` compiles once
 * per process: a new thread skips the compile, and shares the optimised code as the engine tiers it up); each
 * run gets its own runtime (heap, limits) from it.
 */
export function loadQuickJs(compiled: WebAssembly.Module): Promise<QuickJSWASMModule> {
  module ??= newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmModule: compiled }));
  return module;
}

function quickJs(): Promise<QuickJSWASMModule> {
  if (!module) throw new Error("QuickJS is not loaded in this thread: call loadQuickJs first");
  return module;
}

interface VmError {
  name: string;
  message: string;
  stack: string;
  /** Nothing was thrown but null or undefined: what QuickJS throws when it cannot even allocate the error. */
  empty?: boolean;
}

function asVmError(dumped: unknown): VmError {
  if (typeof dumped === "object" && dumped !== null) {
    const e = dumped as Record<string, unknown>;
    return { name: String(e.name ?? "Error"), message: String(e.message ?? ""), stack: String(e.stack ?? "") };
  }
  return { name: "Error", message: String(dumped), stack: "", ...(dumped === null || dumped === undefined ? { empty: true } : {}) };
}

/** The line in the user's code an error points at (the first frame in the code), if any. */
export function userLine(stack: string): number | undefined {
  const match = new RegExp(`${FILE}:(\\d+)`).exec(stack);
  return match ? Math.max(1, Number(match[1]) - 1) : undefined;
}

/** How the run stood when it failed. */
interface RunState {
  /** Whether the heap is (nearly) at its limit now. */
  memoryFull(): boolean;
}

function failure(error: VmError, limits: SandboxLimits, state: RunState): NodeFailure {
  if (/out of memory/i.test(error.message) || error.empty || state.memoryFull()) {
    const thrown = error.empty ? " (or it threw null or undefined, which looks the same)" : "";
    return new NodeFailure(
      "CODE_MEMORY_LIMIT",
      `The code used more than its ${Math.round(limits.memoryBytes / 1024 / 1024)} MiB of memory and was stopped${thrown}. Build smaller values, or raise memoryMb.`,
      {
        memoryBytes: limits.memoryBytes,
      },
    );
  }
  const line = userLine(error.stack);
  const where = line !== undefined ? ` at line ${line}` : "";
  const code = error.name === "SyntaxError" ? "CODE_SYNTAX_ERROR" : "CODE_ERROR";
  return new NodeFailure(code, `${error.name}${where}: ${error.message}`, { name: error.name, ...(line !== undefined ? { line } : {}) });
}

function formatLogArgument(ctx: QuickJSContext, handle: QuickJSHandle): string {
  const value: unknown = ctx.dump(handle);
  return typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
}

/**
 * Runs `code` as the body of `function (input) { … }` in QuickJS compiled to WebAssembly: its own
 * heap with a memory cap, and nothing but the language itself and `console.log` (each line handed to
 * `onLog` as it is written) — no modules, files, network, environment or process. Values cross the
 * boundary only as JSON. Throws a NodeFailure naming the line of the user's code. The time limit and
 * cancellation are the caller's, who runs this on a thread it can terminate (`sandbox-worker.ts`,
 * `code-workers.ts`) and says so through `stopped`.
 */
export async function runInSandbox(code: string, input: unknown, limits: SandboxLimits, onLog: (line: string) => void, stopped: () => boolean = () => false): Promise<SandboxRun> {
  const runtime = (await quickJs()).newRuntime();
  const state: RunState = {
    memoryFull: () => {
      const allocated = /memory allocated\s+\d+\s+(\d+)/.exec(runtime.dumpMemoryUsage());
      return allocated !== null && Number(allocated[1]) > limits.memoryBytes * 0.95;
    },
  };
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(STACK_BYTES);
  // QuickJS asks this every few thousand instructions. `stopped` turns true when the pool gives up on the
  // code (its time limit, a cancel): the loop ends here, and the thread's terminate takes effect. Terminate
  // alone did not always stop a loop running inside QuickJS's WebAssembly: the thread went on spinning.
  runtime.setInterruptHandler(stopped);
  const ctx = runtime.newContext();
  let logBytes = 0;
  try {
    const log = ctx.newFunction("log", (...args) => {
      if (logBytes > limits.maxLogBytes) return;
      const line = args.map((a) => formatLogArgument(ctx, a)).join(" ");
      // An empty line counts too: endless empty lines are stopped like long ones.
      logBytes += line.length + 1;
      onLog(logBytes > limits.maxLogBytes ? `…[console output cut at ${limits.maxLogBytes} bytes]` : line);
    });
    const consoleObject = ctx.newObject();
    for (const name of ["log", "info", "warn", "error", "debug"]) ctx.setProp(consoleObject, name, log);
    ctx.setProp(ctx.global, "console", consoleObject);
    consoleObject.dispose();
    log.dispose();

    const evaluate = (source: string): QuickJSHandle => {
      const result = ctx.evalCode(source, FILE);
      if (result.error) {
        const error = asVmError(ctx.dump(result.error));
        result.error.dispose();
        throw failure(error, limits, state);
      }
      return result.value;
    };
    const fn = evaluate(`(function (input) {\n${code}\n})`);
    const inputJson = ctx.newString(JSON.stringify(input ?? null));
    const parse = evaluate("JSON.parse");
    const inputHandle = ctx.unwrapResult(ctx.callFunction(parse, ctx.undefined, inputJson));
    [inputJson, parse].forEach((h) => h.dispose());
    const called = ctx.callFunction(fn, ctx.undefined, inputHandle);
    fn.dispose();
    inputHandle.dispose();
    if (called.error) {
      const error = asVmError(ctx.dump(called.error));
      called.error.dispose();
      throw failure(error, limits, state);
    }
    let returned = called.value;
    // An async body: settle its promise (the VM has no timers, so its jobs are all there is to run).
    const promised = ctx.getPromiseState(returned);
    if (promised.type !== "fulfilled" || !promised.notAPromise) {
      const executed = runtime.executePendingJobs();
      if (executed.error) executed.error.dispose();
      const settled = ctx.getPromiseState(returned);
      returned.dispose();
      if (settled.type === "rejected") {
        const error = asVmError(ctx.dump(settled.error));
        settled.error.dispose();
        throw failure(error, limits, state);
      }
      if (settled.type === "pending")
        throw new NodeFailure("CODE_ERROR", "The code's promise never settled: the sandbox has no timers or I/O, so there is nothing to wait for. Return a value instead.");
      returned = settled.value;
    }
    const stringify = evaluate("(v) => JSON.stringify(v)");
    const text = ctx.callFunction(stringify, ctx.undefined, returned);
    stringify.dispose();
    returned.dispose();
    if (text.error) {
      const error = asVmError(ctx.dump(text.error));
      text.error.dispose();
      throw failure({ ...error, message: `the returned value cannot be turned into JSON: ${error.message}` }, limits, state);
    }
    const json: unknown = ctx.dump(text.value);
    text.value.dispose();
    return { json: typeof json === "string" ? json : undefined };
  } finally {
    ctx.dispose();
    runtime.dispose();
  }
}
