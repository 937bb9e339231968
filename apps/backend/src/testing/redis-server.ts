import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:net";
import { freePort } from "./free-port.ts";

/** A redis-server the tests started, on 127.0.0.1, nothing persisted. */
export interface TestRedis {
  /** `redis://127.0.0.1:PORT` */
  url: string;
  /** Kills the server and deletes its folder. */
  stop(): Promise<void>;
}

/** redis-server is missing (scripts/ensure-redis.sh installs it), or it would not start. */
export class TestRedisError extends Error {
  readonly code = "TEST_REDIS_UNAVAILABLE";
}

/** True once the server answers PING with PONG. */
async function answersPing(port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      text += chunk.toString();
      if (text.includes("\r\n")) done(text.startsWith("+PONG"));
    });
  });
}

const running = new Set<{ proc: ReturnType<typeof Bun.spawn>; dir: string }>();
let exitHookInstalled = false;

/** A test process that dies without `stop()` still takes its servers down, so none outlive the run. */
function stopOnExit(entry: { proc: ReturnType<typeof Bun.spawn>; dir: string }): void {
  running.add(entry);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const { proc, dir } of running) {
      proc.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

/**
 * Starts a throwaway redis-server on a free port of 127.0.0.1 (well under a second), as a child of
 * this process, its working folder a temp dir and persistence off (`--save ''`, no AOF).
 */
export async function startRedis(): Promise<TestRedis> {
  if (!Bun.which("redis-server")) throw new TestRedisError("redis-server is not installed: run `source scripts/ensure-redis.sh` (installs Debian's redis-server).");
  const dir = mkdtempSync(join(tmpdir(), "weft-redis-"));
  let lastOutput = "";
  // A free port can be taken between asking and binding; another one is tried then.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const proc = Bun.spawn(["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, "--loglevel", "warning"], {
      stdout: "pipe",
      stderr: "pipe",
    });
    const deadline = Date.now() + 10_000;
    while (proc.exitCode === null && Date.now() < deadline) {
      if (await answersPing(port)) {
        const entry = { proc, dir };
        stopOnExit(entry);
        return {
          url: `redis://127.0.0.1:${port}`,
          async stop() {
            running.delete(entry);
            proc.kill("SIGKILL");
            await proc.exited;
            rmSync(dir, { recursive: true, force: true });
          },
        };
      }
      await Bun.sleep(20);
    }
    proc.kill("SIGKILL");
    await proc.exited;
    lastOutput = `${await new Response(proc.stdout as ReadableStream<Uint8Array>).text()}${await new Response(proc.stderr as ReadableStream<Uint8Array>).text()}`.trim();
  }
  rmSync(dir, { recursive: true, force: true });
  throw new TestRedisError(`redis-server did not start: ${lastOutput || "no output"}`);
}
