/**
 * `bun bench/eval.bench.ts` (`bun run bench:eval`): forks from recorded runs (issue 33). A real server (embedded mode,
 * SQLite) runs a 1,000-node chain once; then each fork of its last node (`POST /api/runs/:id/fork` with a changed
 * template) is timed from the request to the fork's `run.completed` event on `/ws` (published once stored, as the editor
 * sees it; `GET /api/runs/:id` then checks the stored end, untimed): the 999 nodes before it come from the stored
 * record, one node executes. (Polling that GET every 1 ms, as this bench did, timed mostly the polling: each answer
 * holds 1,000 observations, built and parsed in this same process.)
 *
 * Prints two JSON lines: `fork_ms` (the median of BENCH_FORKS forks, default 7; goal ≤ 100), its min and max, and the
 * nodes the last fork executed (goal 1).
 */
import { chainWorkflow, RunAnswerSchema, startTestServer, waitFor } from "../apps/backend/src/testing/test-server.ts";
import { StartedRunSchema } from "../apps/backend/src/testing/answers.ts";
import { EvalRunSchema, EvalSuiteSchema } from "../packages/types/src/index.ts";
import { serveModel, streamedReply } from "./support/instant-llm.ts";
import { startRedis } from "../apps/backend/src/testing/redis-server.ts";
import { createTestDatabase, startPostgres } from "../apps/backend/src/testing/postgres-server.ts";
import { spawnServer } from "../apps/backend/src/testing/child-server.ts";
import { spawnWorker, type ChildWorker } from "../apps/backend/src/queue/testing/child-worker.ts";
import { removeDir, tempDir } from "../apps/backend/src/testing/test-server.ts";
import { StreamEnds } from "./support/stream-ends.ts";
import { readdirSync, readFileSync } from "node:fs";

const field = (body: unknown, key: string): unknown => (typeof body === "object" && body !== null ? (body as Record<string, unknown>)[key] : undefined);
const EvalRunAnswerSchema = { parse: (body: unknown) => ({ run: EvalRunSchema.parse(field(body, "run")) }) };

const NODES = Number(process.env.BENCH_NODES ?? 1000);
const FORKS = Number(process.env.BENCH_FORKS ?? 7);
/** Which lines to measure (BENCH_EVAL_ONLY=fork,embedded,queue, default all): one part alone, e.g. under a profiler. */
const ONLY = new Set((process.env.BENCH_EVAL_ONLY ?? "fork,embedded,queue").split(",").map((s) => s.trim()));

if (ONLY.has("fork")) {
  const t = await startTestServer();
  try {
    const ended = (runId: string) =>
      waitFor(
        async () => {
          const answer = RunAnswerSchema.parse((await t.call("GET", `/api/runs/${runId}`)).body);
          if (["completed", "failed", "cancelled", "interrupted"].includes(answer.run.status)) return answer;
          await Bun.sleep(1);
          return undefined;
        },
        120_000,
        `run ${runId}`,
      );
    if ((await t.call("POST", "/api/workflows", { workflow: chainWorkflow("chain", NODES) })).status !== 201) throw new Error("saving the chain failed");
    const original = StartedRunSchema.parse((await t.call("POST", "/api/workflows/chain/runs", {})).body).runId;
    if ((await ended(original)).run.status !== "completed") throw new Error("the recorded run did not complete");

    const times: number[] = [];
    let executed = 0;
    const ends = await StreamEnds.connect(t.url);
    try {
      for (let i = 0; i < FORKS; i++) {
        const t0 = performance.now();
        const res = await t.call("POST", `/api/runs/${original}/fork`, { at: `n${NODES - 1}`, settings: { template: `fork ${i}: {{0}}` } });
        if (res.status !== 202) throw new Error(`fork answered ${res.status}: ${JSON.stringify(res.body)}`);
        const forkId = StartedRunSchema.parse(res.body).runId;
        const endedWith = await ends.end(forkId, ["run.completed", "run.failed", "run.cancelled"], 120_000);
        times.push(performance.now() - t0);
        const fork = await ended(forkId);
        if (endedWith !== "run.completed" || fork.run.status !== "completed") throw new Error(`the fork ended ${endedWith} (${fork.run.status})`);
        executed = fork.observations.filter((o) => !o.cached).length;
      }
    } finally {
      ends.close();
    }
    times.sort((a, b) => a - b);
    const round = (ms: number) => Math.round(ms * 10) / 10;
    console.log(
      JSON.stringify({
        bench: "fork",
        nodes: NODES,
        forks: FORKS,
        fork_ms: round(times[Math.floor(times.length / 2)]),
        fork_min_ms: round(times[0]),
        fork_max_ms: round(times[times.length - 1]),
        nodes_executed: executed,
      }),
    );
  } finally {
    await t.stop();
  }
}

/**
 * `cases_per_s` (issue 33): a suite of BENCH_CASES cases (default 1,000) of a 5-node skill (input → template → LLM →
 * template → output) whose LLM profile points at an instant local model, run by `POST /api/evals/suites/:id/runs`
 * (concurrency BENCH_EVAL_CONCURRENCY, default 16) on a real embedded server, timed from the request to the eval run's
 * `eval.finished` event on `/ws` (published after its final record is stored, as the Evals view follows it), then
 * `GET /api/evals/runs/:id` checks every case passed. (Polling that GET, which holds every case's result, measured the
 * polling: ~a sixth of the process's time went to building, compressing and parsing those answers.) Goal ≥ 200/s
 * embedded. The embedded line also gives `cpu_ms_per_case`: this process's CPU time (server, model and client) per
 * case, which a busy machine's load changes less than the wall time. Then the same in queue mode (below).
 */
const CASES = Number(process.env.BENCH_CASES ?? 1000);
const EVAL_CONCURRENCY = Number(process.env.BENCH_EVAL_CONCURRENCY ?? 16);
const WORKERS = Number(process.env.BENCH_EVAL_WORKERS ?? 2);
type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: unknown }>;

/** CPU time (user + system, ms) a child process has used so far, from /proc (Linux); undefined elsewhere. */
function childCpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    // utime and stime are fields 14 and 15 of the whole line, in clock ticks (100 per second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/**
 * The processes serving `port` (a PostgreSQL cluster: its postmaster, found by its `-p PORT` argument, and every
 * backend it forked; a redis-server by its `host:PORT`), so their CPU per case is reported beside the API's and the
 * workers'. Read at the start and the end of the timed part: a backend forked meanwhile counts from 0.
 */
function serverPids(port: string): number[] {
  const pids: number[] = [];
  let postmaster: number | undefined;
  const stats = new Map<number, string>();
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      stats.set(pid, readFileSync(`/proc/${pid}/stat`, "utf8"));
      if (cmdline.some((arg) => arg.endsWith(`:${port}`)) && cmdline[0].includes("redis-server")) pids.push(pid);
      if (cmdline.includes("-p") && cmdline[cmdline.indexOf("-p") + 1] === port) postmaster = pid;
    } catch {
      // Gone meanwhile.
    }
  }
  if (postmaster === undefined) return pids;
  pids.push(postmaster);
  for (const [pid, stat] of stats) if (Number(stat.split(") ")[1].split(" ")[1]) === postmaster) pids.push(pid);
  return pids;
}

/** Processes besides this one whose CPU per case the line reports (queue mode: the API, the workers, PostgreSQL and Redis), by pid or found again by port. */
type Children = Record<string, number[] | (() => number[])>;

/** Saves the 5-node skill and a suite of CASES cases on the server behind `call`, runs it, and prints the JSON line. */
async function benchSuite(call: Call, serverUrl: string, modelUrl: string, line: Record<string, unknown>, children: Children = {}): Promise<void> {
  // Per process, so one that starts or ends meanwhile (a PostgreSQL backend) counts only what it used in between.
  const childCpu = () =>
    Object.fromEntries(Object.entries(children).map(([name, pids]) => [name, new Map((typeof pids === "function" ? pids() : pids).map((pid) => [pid, childCpuMs(pid) ?? 0]))] as const));
  const profile = await call("POST", "/api/llm-profiles", { name: "Instant", baseUrl: modelUrl, model: "bench-model", timeoutMs: 10_000 });
  if (profile.status !== 201) throw new Error(`the LLM profile was refused: ${JSON.stringify(profile.body)}`);
  const profileId = String(field(field(profile.body, "profile"), "id"));
  const skill = {
    id: "five",
    name: "Five nodes",
    nodes: [
      { id: "topic", type: "core:workflow-input", config: { name: "topic", portType: "string", required: true } },
      { id: "ask", type: "core:text-template", config: { template: "Say something about {{0}}" } },
      { id: "llm", type: "llm:chat", config: { profileId } },
      { id: "wrap", type: "core:text-template", config: { template: "Answer: {{0}}" } },
      { id: "out", type: "core:workflow-output", config: { name: "text", portType: "string" } },
    ],
    edges: [
      { id: "e1", source: "topic", sourceHandle: "value", target: "ask", targetHandle: "values" },
      { id: "e2", source: "ask", sourceHandle: "text", target: "llm", targetHandle: "prompt" },
      { id: "e3", source: "llm", sourceHandle: "text", target: "wrap", targetHandle: "values" },
      { id: "e4", source: "wrap", sourceHandle: "text", target: "out", targetHandle: "value" },
    ],
  };
  if ((await call("POST", "/api/workflows", { workflow: skill })).status !== 201) throw new Error("saving the skill failed");
  const cases = Array.from({ length: CASES }, (_, i) => ({
    id: `c${i}`,
    name: `case ${i}`,
    inputs: { topic: `topic ${i}` },
    assertions: [{ kind: "equals", output: "text", expected: "Answer: instant answer" }],
  }));
  const suite = await call("POST", "/api/evals/suites", { name: "bench", target: { kind: "workflow", id: "five" }, cases });
  if (suite.status !== 201) throw new Error(`the suite was refused: ${JSON.stringify(suite.body).slice(0, 300)}`);
  const suiteId = EvalSuiteSchema.parse(field(suite.body, "suite")).id;
  const ends = await StreamEnds.connect(serverUrl);
  let seconds: number;
  let cpuMs: number;
  let runId: string;
  const childCpuPerCase: Record<string, number> = {};
  try {
    const children0 = childCpu();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const started = await call("POST", `/api/evals/suites/${suiteId}/runs`, { concurrency: EVAL_CONCURRENCY });
    if (started.status !== 202) throw new Error(`the eval run was refused: ${JSON.stringify(started.body)}`);
    runId = EvalRunAnswerSchema.parse(started.body).run.id;
    await ends.end(runId, ["eval.finished"], 900_000);
    seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    cpuMs = (cpu.user + cpu.system) / 1000;
    const children1 = childCpu();
    for (const name of Object.keys(children)) {
      let used = 0;
      for (const [pid, ms] of children1[name]) used += ms - (children0[name].get(pid) ?? 0);
      childCpuPerCase[`${name}_cpu_ms_per_case`] = Math.round((used / CASES) * 100) / 100;
    }
  } finally {
    ends.close();
  }
  const run = EvalRunAnswerSchema.parse((await call("GET", `/api/evals/runs/${runId}`)).body).run;
  if (run.status !== "completed") throw new Error(`the eval run ended ${run.status}: ${run.error ?? ""}`);
  if (run.sides[0].passed !== CASES) throw new Error(`only ${run.sides[0].passed} of ${CASES} cases passed: ${JSON.stringify(run.sides[0].results.find((r) => !r.pass))}`);
  console.log(
    JSON.stringify({
      bench: "eval",
      ...line,
      cases: CASES,
      nodes: 5,
      concurrency: EVAL_CONCURRENCY,
      seconds: Math.round(seconds * 100) / 100,
      cases_per_s: Math.round((CASES / seconds) * 10) / 10,
      ...(line.mode === "embedded" ? { cpu_ms_per_case: Math.round((cpuMs / CASES) * 100) / 100 } : {}),
      ...childCpuPerCase,
    }),
  );
}

/**
 * Queue mode (issue 33): the same suite on an API process and BENCH_EVAL_WORKERS (default 2) `weft worker` processes
 * (each taking EVAL_CONCURRENCY / workers case runs at a time) sharing a PostgreSQL and a Redis started here; the case
 * runs are the workers' jobs. Goal ≥ 1.7× the embedded line's cases_per_s with 2 workers. The line gives the CPU per case
 * of the API, the workers, PostgreSQL (its postmaster and backends) and Redis: on 2 cores, 340 cases/s leaves them
 * ~5.5 ms together.
 */
async function benchQueue(modelUrl: string): Promise<void> {
  const redis = await startRedis();
  const pg = await startPostgres();
  const dataDir = tempDir("weft-bench-eval-queue-");
  const workers: ChildWorker[] = [];
  try {
    const env = { WEFT_REDIS_URL: redis.url, WEFT_DATA_DIR: dataDir, WEFT_DEMO_LLM: "off", WEFT_DATABASE_URL: await createTestDatabase(pg.url) };
    const api = await spawnServer(dataDir, env);
    try {
      const perWorker = String(Math.max(1, Math.ceil(EVAL_CONCURRENCY / WORKERS)));
      for (let i = 0; i < WORKERS; i++) workers.push(await spawnWorker(env, ["--concurrency", perWorker]));
      await benchSuite(
        (method, path, body) => api.call(method, path, body),
        api.url,
        modelUrl,
        { mode: "queue", workers: WORKERS },
        {
          api: [api.proc.pid],
          workers: workers.map((w) => w.proc.pid),
          postgres: () => serverPids(new URL(pg.url).port),
          redis: () => serverPids(new URL(redis.url).port),
        },
      );
    } finally {
      for (const w of workers) w.proc.kill("SIGKILL");
      api.proc.kill("SIGKILL");
      await Promise.all([...workers.map((w) => w.proc.exited), api.proc.exited]);
    }
  } finally {
    await redis.stop();
    await pg.stop();
    removeDir(dataDir);
  }
}

const model = serveModel(() => streamedReply("instant answer"));
try {
  if (ONLY.has("embedded")) {
    const e = await startTestServer({ runConcurrency: EVAL_CONCURRENCY });
    try {
      await benchSuite((method, path, body) => e.call(method, path, body), e.url, model.baseUrl, { mode: "embedded" });
    } finally {
      await e.stop();
    }
  }

  if (ONLY.has("queue")) await benchQueue(model.baseUrl);
} finally {
  await model.stop();
}
