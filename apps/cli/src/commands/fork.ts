import { CliError, EXIT_FAILED, EXIT_USAGE } from "../support/cli-error.ts";
import { callServer } from "../support/server-client.ts";

export const FORK_USAGE =
  "weft run --fork <runId> --at <nodeId> [--set key=value …] [--input port=value …] [--pin node.port=value …] [--server URL] [--json]   fork a past run of a running Weft at a node: that node's settings (--set) or inputs (--input) changed, upstream outputs pinned (--pin); what does not depend on the change comes from the run's record (no LLM or tool call repeated). Prints the fork's outputs (--json: the whole run); the token from WEFT_AUTH_TOKEN, else <WEFT_DATA_DIR or data>/access-token; the server from --server, else WEFT_SERVER_URL, else http://127.0.0.1:$PORT (3000)";

export interface ForkArgs {
  runId: string;
  at: string | undefined;
  set: string[];
  input: string[];
  pin: string[];
  server: string;
  json: boolean;
}

interface RunView {
  status: string;
  outputs: unknown;
  error?: { code?: unknown; message?: unknown };
}
const END_STATES = ["completed", "failed", "cancelled", "interrupted", "budget_exceeded"];
const POLL_MS = 100;

/** `key=value` pairs as an object; a value is read as JSON when it parses (`3`, `true`, `{"a":1}`), else as text. */
function pairs(option: string, given: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of given) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new CliError(`${option} "${pair}" is not key=value. Fix: write it as ${option} key=value, e.g. ${option} template="Hello {{0}}"`, EXIT_USAGE);
    const key = pair.slice(0, eq);
    if (key in out) throw new CliError(`${option} ${key} is given twice. Fix: give each once.`, EXIT_USAGE);
    out[key] = jsonOrText(pair.slice(eq + 1));
  }
  return out;
}

function jsonOrText(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** `--pin node.port=value` pairs by node, then port. */
function pins(given: string[]): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [key, value] of Object.entries(pairs("--pin", given))) {
    const dot = key.lastIndexOf(".");
    if (dot <= 0 || dot === key.length - 1) throw new CliError(`--pin ${key}=… names no node and port. Fix: write it as --pin node.port=value, e.g. --pin llm.text="an answer"`, EXIT_USAGE);
    (out[key.slice(0, dot)] ??= {})[key.slice(dot + 1)] = value;
  }
  return out;
}

/** Forks the run on the server, waits for the fork to end and prints it like `weft run` prints a run. */
export async function forkRun(args: ForkArgs, env: Record<string, string | undefined>): Promise<number> {
  if (args.at === undefined) throw new CliError(`--fork needs --at <nodeId>: the node to fork at. Usage: ${FORK_USAGE}`, EXIT_USAGE);
  const settings = pairs("--set", args.set);
  const inputs = pairs("--input", args.input);
  const pinned = pins(args.pin);
  const body = {
    at: args.at,
    ...(Object.keys(settings).length > 0 ? { settings } : {}),
    ...(Object.keys(inputs).length > 0 ? { inputs } : {}),
    ...(Object.keys(pinned).length > 0 ? { pins: pinned } : {}),
  };
  const started = await callServer(args.server, env, "POST", `/api/runs/${encodeURIComponent(args.runId)}/fork`, body);
  if (started.status !== 202) {
    const error = field(started.body, "error");
    const message = typeof field(error, "message") === "string" ? `${String(field(error, "code"))}: ${String(field(error, "message"))}` : JSON.stringify(started.body).slice(0, 300);
    throw new CliError(`the fork was refused (${started.status}) — ${message}`, started.status >= 400 && started.status < 500 && started.status !== 403 ? EXIT_USAGE : EXIT_FAILED);
  }
  const forkId = field(started.body, "runId");
  if (typeof forkId !== "string") throw new CliError(`the server answered the fork without a run id: ${JSON.stringify(started.body).slice(0, 300)}; is it a Weft server?`);
  process.stderr.write(`fork ${forkId} of run ${args.runId} at "${args.at}"\n`);
  for (;;) {
    const answer = await callServer(args.server, env, "GET", `/api/runs/${encodeURIComponent(forkId)}`);
    const run = runOf(answer.body);
    if (answer.status === 200 && run !== undefined && END_STATES.includes(run.status)) {
      process.stdout.write(`${JSON.stringify(args.json ? answer.body : run.outputs, null, 2)}\n`);
      if (run.error) process.stderr.write(`${run.status}: ${String(run.error.code)}: ${String(run.error.message)}\n`);
      return run.status === "completed" ? 0 : EXIT_FAILED;
    }
    if (answer.status !== 200) throw new CliError(`reading the fork ${forkId} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
    await Bun.sleep(POLL_MS);
  }
}

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

/** `GET /api/runs/:id`'s run, as far as this command reads it. */
function runOf(answer: unknown): RunView | undefined {
  const run = field(answer, "run");
  const status = field(run, "status");
  if (typeof status !== "string") return undefined;
  const error = field(run, "error");
  return { status, outputs: field(run, "outputs") ?? {}, ...(typeof error === "object" && error !== null ? { error } : {}) };
}
