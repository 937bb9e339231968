import { defineNode } from "../define-node.ts";
import { codeWorkers } from "./code-workers.ts";

const MiB = 1024 * 1024;
const PORT_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A returned object's fields as outputs of their own (an agent sees them directly; `result` keeps the whole). */
function fieldsOf(value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter(([key]) => PORT_NAME.test(key)));
}

/**
 * A JavaScript step in QuickJS (WebAssembly), run on one of the process's code threads (`code-workers.ts`),
 * never on the event loop. Its console lines stream as chunks while it runs.
 */
export const codeJavascript = defineNode(
  {
    type: "code:javascript",
    title: "JavaScript",
    description:
      "Runs JavaScript in a sandbox (QuickJS in WebAssembly): the code is a function body that gets `input` and returns the result, e.g. `return { total: input.items.length }`. console.log lines stream out. No files, network, environment, modules or timers; time and memory are limited. Errors name the line.",
    category: "code",
    flags: { streaming: true },
    inputs: [
      { id: "code", type: "string", required: true, multiline: true, label: "Code", description: "A function body: `input` holds the Input value; `return` gives the Result." },
      { id: "input", type: "any", label: "Input", description: "Any JSON value, available to the code as `input`." },
      { id: "timeoutMs", type: "integer", min: 1, max: 30_000, default: 1000, label: "Time limit (ms)", description: "The code is stopped after this long (default 1000 ms)." },
      { id: "memoryMb", type: "integer", min: 1, max: 512, default: 64, label: "Memory (MiB)", description: "The code's heap limit (default 64 MiB)." },
    ],
    outputs: [
      { id: "result", type: "any", label: "Result", description: "What the code returned, as JSON (functions and undefined fields dropped); a returned object's fields are outputs of their own too." },
      { id: "logs", type: "array", label: "Logs", description: "The console.log lines, in order." },
    ],
  },
  async function* (inputs, ctx) {
    const lines: string[] = [];
    let wake: (() => void) | undefined;
    let ended = false;
    const running = codeWorkers.run(
      { code: String(inputs.code), input: inputs.input, limits: { memoryBytes: Number(inputs.memoryMb) * MiB, maxLogBytes: 256 * 1024 } },
      {
        timeoutMs: Number(inputs.timeoutMs),
        signal: ctx.signal,
        onLog: (line) => {
          lines.push(line);
          wake?.();
        },
      },
    );
    const end = () => {
      ended = true;
      wake?.();
    };
    running.then(end, end);
    for (let sent = 0; ;) {
      while (sent < lines.length) yield { log: lines[sent++] };
      if (ended) break;
      await new Promise<void>((resolve) => (wake = resolve));
    }
    const run = await running;
    return { ...fieldsOf(run.value), result: run.value ?? null, logs: run.logs };
  },
);
