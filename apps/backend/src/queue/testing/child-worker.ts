import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

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
  const proc = Bun.spawn(["bun", CLI, "worker", ...args], {
    env: { ...process.env, WEFT_LOG_LEVEL: "info", WEFT_DEMO_LLM: "off", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  let text = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      text += decoder.decode(value, { stream: true });
    }
  };
  void collect(proc.stdout as ReadableStream<Uint8Array>);
  void collect(proc.stderr as ReadableStream<Uint8Array>);
  const deadline = Date.now() + 20_000;
  let id: string | undefined;
  while (!id) {
    id = /weft worker (\S+) is taking runs/.exec(text)?.[1];
    if (id) break;
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`worker did not start:\n${text}`);
    await Bun.sleep(25);
  }
  return {
    proc,
    id,
    output: () => text,
    runsTaken: () => [...text.matchAll(/run taken \{"runId":"([^"]+)"/g)].map((m) => m[1]),
  };
}
