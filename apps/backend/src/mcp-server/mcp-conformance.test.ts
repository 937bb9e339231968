import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, templateWorkflow, type TestServer } from "../testing/test-server.ts";

/** The official suite (a dev dependency), run under Bun: it needs Node ≥ 22, which CI may not have. */
const SUITE = Bun.resolveSync("@modelcontextprotocol/conformance/dist/index.js", fileURLToPath(new URL(".", import.meta.url)));

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  expect((await t.call("POST", "/api/workflows", { workflow: templateWorkflow("notes") })).status).toBe(201);
});
afterAll(() => t.stop());

/** Runs one scenario against /mcp; the token goes in the URL, the suite sends no headers of ours. Async: the server shares this process. */
async function scenario(name: string): Promise<{ exitCode: number; output: string }> {
  const url = `${t.url}/mcp?token=${encodeURIComponent(t.server.accessToken)}`;
  const proc = Bun.spawn(["bun", SUITE, "server", "--url", url, "--scenario", name], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { exitCode, output: stdout + stderr };
}

describe("the MCP conformance suite's scenarios for a tools server", () => {
  for (const name of ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"]) {
    it(name, { timeout: 60_000 }, async () => {
      const { exitCode, output } = await scenario(name);
      expect(output).toMatch(/Passed: (\d+)\/\1, 0 failed, 0 warnings/);
      expect(exitCode, output).toBe(0);
    });
  }
});
