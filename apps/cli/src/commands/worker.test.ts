/** `weft worker` as the real process: its refusals; what it does with a queue is tested in the backend's queue/ tests. */
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const MAIN = join(resolve(import.meta.dirname, "../.."), "src/main.ts");

async function weft(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const base: Record<string, string | undefined> = { ...process.env, NO_COLOR: "1" };
  delete base.WEFT_REDIS_URL;
  const proc = Bun.spawn([process.execPath, MAIN, "worker", ...args], { stdout: "pipe", stderr: "pipe", env: { ...base, ...env } });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

describe("weft worker", () => {
  it("refuses to start without WEFT_REDIS_URL, saying what to set", async () => {
    const res = await weft({});
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("WEFT_REDIS_URL is not set");
  });

  it("refuses a bad --concurrency and a non-Redis URL before connecting anywhere", async () => {
    const bad = await weft({ WEFT_REDIS_URL: "redis://127.0.0.1:1" }, "--concurrency", "0");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--concurrency must be an integer from 1 to 256");
    const agents = await weft({ WEFT_REDIS_URL: "redis://127.0.0.1:1" }, "--agents", "many");
    expect(agents.code).toBe(2);
    expect(agents.stderr).toContain('--agents must be an integer from 1 to 1024, got "many"');
    const scenes = await weft({ WEFT_REDIS_URL: "redis://127.0.0.1:1" }, "--scenes", "0");
    expect(scenes.code).toBe(2);
    expect(scenes.stderr).toContain("--scenes must be an integer from 1 to 1024");
    const url = await weft({ WEFT_REDIS_URL: "http://example.com" });
    expect(url.code).toBe(2);
    expect(url.stderr).toContain("WEFT_REDIS_URL: must be a redis:// or rediss:// URL");
  });

  it("lists itself in the help", async () => {
    const res = await weft({}, "--help");
    expect(res.code).toBe(0);
    expect(res.stdout).toContain("weft worker [--concurrency N]");
  });
});
