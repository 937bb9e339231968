import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { awaitAnnouncement, collectOutput } from "../../testing/child-output.ts";

// `bun run weft worker` runs exactly this file; spawned directly so a signal reaches the worker itself, not a `bun run` wrapper.
const CLI = join(dirname(fileURLToPath(import.meta.url)), "../../../../cli/src/main.ts");

export interface ChildWorker {
  proc: ReturnType<typeof Bun.spawn>;
  /** The worker's id, as it announced itself. */
  id: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Ids of the runs this worker took (from its `run taken` log lines). */
  runsTaken(): string[];
}

/**
 * `weft worker` as a real child process. `env` carries the API's WEFT_REDIS_URL and WEFT_DATABASE_URL
 * (or WEFT_DATA_DIR); it logs at info so the tests can see which runs it took.
 */
export async function spawnWorker(env: Record<string, string>, args: string[] = []): Promise<ChildWorker> {
  const proc = Bun.spawn(["bun", ...(process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []), CLI, "worker", ...args], {
    env: { ...process.env, WEFT_LOG_LEVEL: "info", WEFT_DEMO_LLM: "off", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const output = collectOutput(proc);
  const id = await awaitAnnouncement(proc, output, /weft worker (\S+) is taking runs/, "worker");
  return {
    proc,
    id,
    output,
    runsTaken: () => [...output().matchAll(/run taken \{"runId":"([^"]+)"/g)].map((m) => m[1]),
  };
}

/**
 * The URL of a worker's metrics listener (started with WEFT_WORKER_METRICS_PORT), once it announced it: the line comes
 * after "is taking runs" and, on a busy machine, in a later chunk of its output.
 */
export const workerMetricsUrl = (worker: ChildWorker): Promise<string> =>
  awaitAnnouncement(worker.proc, worker.output, /weft worker metrics: (http:\/\/\S+)\/metrics/, "the worker's metrics listener");
