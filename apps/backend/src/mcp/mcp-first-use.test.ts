import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { startTestServer, tempDir, waitForRun, type TestServer } from "../testing/test-server.ts";
import { z } from "zod";
import { StartedRunSchema } from "../testing/answers.ts";

/** GET /api/settings/mcp: the `everything` server's status, kept whole (loose). */
const mcpStatus = (body: unknown) => z.object({ status: z.record(z.string(), z.looseObject({ state: z.string() })) }).parse(body).status.everything;

const EVERYTHING = join(fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/", import.meta.url)), "server-everything/dist/index.js");
const SECRET = "mcp-env-secret-9a8b7c6d5e";

/** Across a restart of Weft: secrets encrypted at rest and redacted, node types known before the server starts, which it does on first use. */
describe("an MCP server after Weft restarts", () => {
  const dataDir = tempDir();
  let t: TestServer | undefined;
  afterAll(() => t?.stop());

  it("keeps env values encrypted, redacts them from what a tool returns, and starts the server only when a tool is called", async () => {
    t = await startTestServer({ dataDir });
    const put = await t.call("PUT", "/api/settings/mcp", { mcpServers: { everything: { command: process.execPath, args: [EVERYTHING], env: { API_TOKEN: SECRET } } } });
    expect(put.status).toBe(200);
    expect(JSON.stringify((await t.server.storage.settings.get("mcp"))?.value)).not.toContain(SECRET);
    await t.stop();

    t = await startTestServer({ dataDir });
    expect(mcpStatus((await t.call("GET", "/api/settings/mcp")).body)).toMatchObject({ state: "idle", restarts: 0 });
    const types = z
      .object({ nodes: z.array(z.object({ type: z.string() })) })
      .parse((await t.call("GET", "/api/nodes")).body)
      .nodes.map((n) => n.type);
    expect(types).toContain("mcp:everything.get-env");
    expect(mcpStatus((await t.call("GET", "/api/settings/mcp")).body)?.state).toBe("idle");

    const workflow = {
      id: "env",
      name: "env",
      nodes: [
        { id: "call", type: "mcp:everything.get-env", inputs: {} },
        { id: "out", type: "core:workflow-output", config: { name: "text", portType: "string" } },
      ],
      edges: [{ id: "e1", source: "call", sourceHandle: "text", target: "out", targetHandle: "value" }],
    };
    expect((await t.call("POST", "/api/workflows", { workflow })).status).toBe(201);
    const started = await t.call("POST", "/api/workflows/env/runs", { inputs: {} });
    const done = await waitForRun(t, StartedRunSchema.parse(started.body).runId, 60_000);
    expect(done.run.status).toBe("completed");
    expect(done.run.outputs.text).toContain("API_TOKEN");
    expect(done.run.outputs.text).not.toContain(SECRET);
    expect(mcpStatus((await t.call("GET", "/api/settings/mcp")).body)?.state).toBe("ready");
  });
});
