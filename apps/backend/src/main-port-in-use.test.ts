import { describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { exitOrAnnouncement } from "./testing/child-output.ts";
import { spawnServer } from "./testing/child-server.ts";
import { removeDir, tempDir } from "./testing/test-server.ts";

const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));

describe("main.ts on a port another Weft listens on", () => {
  it("refuses to start (exit code 2, a message saying so) instead of sharing the port, and the running one keeps every request", async () => {
    const firstDir = tempDir();
    const secondDir = tempDir();
    const first = await spawnServer(firstDir, { WEFT_DEMO_LLM: "off" });
    try {
      const port = new URL(first.url).port;
      const second = Bun.spawn(["bun", MAIN], {
        env: { ...process.env, PORT: port, WEFT_DATA_DIR: secondDir, WEFT_LOG_LEVEL: "warn", WEFT_DEMO_LLM: "off" },
        stdout: "pipe",
        stderr: "pipe",
      });
      // A second server that did start (sharing the port) says so and never exits by itself; awaited, not timed (under load
      // a start took longer than the 15 s this test once gave it).
      const { code, stdout: out, stderr: err } = await exitOrAnnouncement(second, "Weft is running");
      expect(code).toBe(2);
      expect(err).toContain(`Port ${port} on 127.0.0.1 is already in use. Is Weft already running there`);
      expect(err).not.toMatch(/\n\s+at /);
      expect(out).not.toContain("Weft is running");
      // Every request still reaches the first server: with the port shared, some would have gone to the second.
      const answers = await Promise.all(Array.from({ length: 20 }, () => first.call("GET", "/api/health")));
      expect(answers.every((a) => a.status === 200)).toBe(true);
    } finally {
      first.proc.kill("SIGKILL");
      await first.proc.exited;
      removeDir(firstDir);
      removeDir(secondDir);
    }
  });
});
