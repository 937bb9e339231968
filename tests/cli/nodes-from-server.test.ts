/** `weft nodes --server`: a running Weft's node types, its MCP servers' tools included, asked with the access token as scripts do. */
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, TEST_TOKEN, type TestServer } from "../../apps/backend/src/testing/test-server.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const MAIN = join(ROOT, "apps/cli/src/main.ts");
const EVERYTHING = join(ROOT, "apps/backend/node_modules/@modelcontextprotocol/server-everything/dist/index.js");

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  const put = await t.call("PUT", "/api/settings/mcp", { mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } } });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
}, 60_000);
afterAll(() => t?.stop());

async function weft(env: Record<string, string>, ...args: string[]) {
  const proc = Bun.spawn([process.execPath, MAIN, ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1", ...env } });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

describe("weft nodes --server", () => {
  it("lists the server's node types with its MCP tools, and says what to do when the token is wrong", async () => {
    const listed = await weft({ WEFT_AUTH_TOKEN: TEST_TOKEN }, "nodes", "--server", t.url);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain("mcp:everything.echo");
    expect(listed.stdout).toContain("core:text-template");
    const builtIn = await weft({}, "nodes");
    expect(builtIn.stdout).not.toContain("mcp:everything.echo");

    const refused = await weft({ WEFT_AUTH_TOKEN: "not-the-right-token-at-all" }, "nodes", "--server", t.url);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("refused the access token (401)");
    expect(refused.stderr).not.toMatch(/^\s+at .+:\d+/m);
  });
});
