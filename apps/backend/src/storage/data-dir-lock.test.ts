import { describe, expect, it } from "vitest";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { exitOrAnnouncement } from "../testing/child-output.ts";
import { spawnServer } from "../testing/child-server.ts";
import { removeDir, tempDir } from "../testing/test-server.ts";
import { DATA_DIR_LOCK_FILE, DataDirInUseError, lockDataDir } from "./data-dir-lock.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const proc = Bun.spawn(["true"]);
  await proc.exited;
  return proc.pid;
}

describe("the data folder lock", () => {
  it("is shared by the servers of one process, and removed when the last lets go", () => {
    const dir = tempDir();
    const first = lockDataDir(dir);
    const second = lockDataDir(dir);
    first();
    expect(existsSync(join(dir, DATA_DIR_LOCK_FILE))).toBe(true);
    second();
    expect(existsSync(join(dir, DATA_DIR_LOCK_FILE))).toBe(false);
    removeDir(dir);
  });

  it("is taken over from a process that is gone, or from a reused pid (another start time)", async () => {
    const dir = tempDir();
    const file = join(dir, DATA_DIR_LOCK_FILE);
    writeFileSync(file, JSON.stringify({ pid: await deadPid() }));
    lockDataDir(dir)();
    writeFileSync(file, JSON.stringify({ pid: process.ppid, start: "1" }));
    lockDataDir(dir)();
    // The parent is alive and is who it says: held.
    const stat = readFileSync(`/proc/${process.ppid}/stat`, "utf8");
    writeFileSync(file, JSON.stringify({ pid: process.ppid, start: stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] }));
    expect(() => lockDataDir(dir)).toThrow(DataDirInUseError);
    removeDir(dir);
  });

  it("stops a second server on the folder (exit code 2, a message saying so) while the first runs; after a kill the next start takes it over", async () => {
    const dir = tempDir();
    const first = await spawnServer(dir, { WEFT_DEMO_LLM: "off" });
    let next: Awaited<ReturnType<typeof spawnServer>> | undefined;
    try {
      const second = Bun.spawn(["bun", MAIN], { env: { ...process.env, PORT: "0", WEFT_DATA_DIR: dir, WEFT_LOG_LEVEL: "warn", WEFT_DEMO_LLM: "off" }, stdout: "pipe", stderr: "pipe" });
      // A second server that did start says so and never exits by itself; awaited, not timed (a start under load can take
      // longer than the 15 s this test once gave it).
      const { code, stdout: out, stderr: err } = await exitOrAnnouncement(second, "Weft is running");
      expect(code).toBe(2);
      expect(err).toContain(`The data folder ${dir} is in use by another Weft (process ${first.proc.pid})`);
      expect(out).not.toContain("Weft is running");
      expect((await first.call("GET", "/api/health")).status).toBe(200);

      first.proc.kill("SIGKILL");
      await first.proc.exited;
      expect(existsSync(join(dir, DATA_DIR_LOCK_FILE))).toBe(true);
      next = await spawnServer(dir, { WEFT_DEMO_LLM: "off" });
      expect((await next.call("GET", "/api/workflows")).status).toBe(200);
      next.proc.kill("SIGTERM");
      expect(await next.proc.exited).toBe(0);
      expect(existsSync(join(dir, DATA_DIR_LOCK_FILE))).toBe(false);
    } finally {
      first.proc.kill("SIGKILL");
      next?.proc.kill("SIGKILL");
      removeDir(dir);
    }
  });
});
