import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TEST_TOKEN, call } from "./http-call.ts";

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
  const proc = Bun.spawn(["bun", MAIN], {
    env: { ...process.env, PORT: "0", WEFT_DATA_DIR: dataDir, WEFT_LOG_LEVEL: "warn", WEFT_AUTH_TOKEN: TEST_TOKEN, ...env },
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
  let url: string | undefined;
  while (!url) {
    url = /running on (http:\/\/\S+)/.exec(text)?.[1];
    if (url) break;
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`server did not start:\n${text}`);
    await Bun.sleep(25);
  }
  const base = url;
  const authorization = `Bearer ${env.WEFT_AUTH_TOKEN ?? TEST_TOKEN}`;
  return { url: base, proc, call: (method, path, body) => call(base, method, path, body, { authorization }), output: () => text };
}
