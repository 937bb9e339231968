import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TEST_TOKEN, call } from "./http-call.ts";
import { awaitAnnouncement, collectOutput } from "./child-output.ts";

// Not `new URL(…, import.meta.url)`: under happy-dom, URL is the page's and refuses file URLs.
const MAIN = join(dirname(fileURLToPath(import.meta.url)), "../main.ts");

export interface ChildServer {
  url: string;
  proc: ReturnType<typeof Bun.spawn>;
  call: (method: string, path: string, body?: unknown) => ReturnType<typeof call>;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
}

/** `bun apps/backend/src/main.ts` as a real child process, on a free port, with its data in `dataDir`. */
export async function spawnServer(dataDir: string, env: Record<string, string> = {}): Promise<ChildServer> {
  const proc = Bun.spawn(["bun", ...(process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []), MAIN], {
    env: { ...process.env, PORT: "0", WEFT_DATA_DIR: dataDir, WEFT_LOG_LEVEL: "warn", WEFT_AUTH_TOKEN: TEST_TOKEN, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const output = collectOutput(proc);
  const url = await awaitAnnouncement(proc, output, /running on (http:\/\/\S+)/, "server");
  const authorization = `Bearer ${env.WEFT_AUTH_TOKEN ?? TEST_TOKEN}`;
  return { url, proc, call: (method, path, body) => call(url, method, path, body, { authorization }), output };
}
