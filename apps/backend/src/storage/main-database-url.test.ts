import { describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { tempDir } from "../testing/test-server.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));

describe("main.ts with WEFT_DATABASE_URL", () => {
  it("a database it cannot reach stops the start with exit code 2 and a message naming the database, never its password", async () => {
    const proc = Bun.spawn(["bun", MAIN], {
      env: { ...process.env, PORT: "0", WEFT_DATA_DIR: tempDir(), WEFT_LOG_LEVEL: "warn", WEFT_DEMO_LLM: "off", WEFT_DATABASE_URL: "postgres://weft:hunter2-secret@127.0.0.1:1/weft_nowhere" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    expect(code).toBe(2);
    expect(err).toContain("Could not open the PostgreSQL storage at postgres://weft@127.0.0.1:1/weft_nowhere");
    expect(out + err).not.toContain("hunter2-secret");
    expect(err).not.toMatch(/\n\s+at /);
  });
});
