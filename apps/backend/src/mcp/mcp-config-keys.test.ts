import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { freePort } from "../testing/free-port.ts";
import { startTestServer, tempDir, waitFor, waitForRun, type TestServer } from "../testing/test-server.ts";
import { StartedRunSchema } from "../testing/answers.ts";
import { oneNodeWorkflow } from "../testing/one-node-workflow.ts";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { createTestUser } from "../testing/users.ts";

const EVERYTHING = join(fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/", import.meta.url)), "server-everything/dist/index.js");

const SettingsSchema = z.object({ mcpServers: z.record(z.string(), z.looseObject({})), status: z.record(z.string(), z.looseObject({ state: z.string(), transport: z.string() })) });
const NodeListSchema = z.object({ nodes: z.array(z.object({ type: z.string() })) });
const ResultSchema = z.union([z.object({ ok: z.literal(true), text: z.string() }).loose(), z.object({ ok: z.literal(false), error: z.object({ code: z.string(), message: z.string() }) })]);

/**
 * The config keys other MCP clients write (`disabled`, `timeout`, `autoApprove`, `type: "sse"`) and what a
 * tool's `isError` answer does to its node and run. Real server-everything processes (stdio and legacy SSE).
 */
describe("MCP config keys of other clients", () => {
  let t: TestServer;
  let sse: ReturnType<typeof Bun.spawn>;
  let ssePort: number;
  const marker = join(tempDir("weft-mcp-disabled-"), "started");
  let saved: { status: number; body: unknown };

  const run = async (workflowId: string) => {
    const started = await t.call("POST", `/api/workflows/${workflowId}/runs`, { inputs: {} });
    expect(started.status).toBe(202);
    return waitForRun(t, StartedRunSchema.parse(started.body).runId, 60_000);
  };
  const resultOf = async (workflowId: string) => ResultSchema.parse((await run(workflowId)).run.outputs.result);
  const servers = (autoApprove: string[]) => ({
    everything: { command: process.execPath, args: [EVERYTHING], autoApprove, timeout: 120_000 },
    legacy: { type: "sse", url: `http://127.0.0.1:${ssePort}/sse` },
    // Would leave a file behind if it were ever started.
    off: { command: "/bin/sh", args: ["-c", `touch '${marker}'`], disabled: true },
  });

  beforeAll(async () => {
    ssePort = await freePort();
    sse = Bun.spawn([process.execPath, EVERYTHING, "sse"], { env: { ...process.env, PORT: String(ssePort) }, stdout: "ignore", stderr: "ignore" });
    await waitFor(async () => (await fetch(`http://127.0.0.1:${ssePort}/listening`).catch(() => undefined)) ?? undefined, 60_000, "server-everything over SSE to listen");
    t = await startTestServer();
    saved = await t.call("PUT", "/api/settings/mcp", { mcpServers: servers(["echo"]) });
    for (const workflow of [
      oneNodeWorkflow("echo", "mcp:everything.echo", { message: "approved" }),
      oneNodeWorkflow("sum", "mcp:everything.get-sum", { a: 1, b: 2 }),
      oneNodeWorkflow("legacy-sum", "mcp:legacy.get-sum", { a: 20, b: 22 }),
      // An id the tool refuses: the server answers with isError.
      oneNodeWorkflow("bad-args", "mcp:everything.get-resource-reference", { resourceType: "Text", resourceId: -3 }),
    ])
      expect((await t.call("POST", "/api/workflows", { workflow })).status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await t?.stop();
    sse?.kill();
  });

  it("accepts disabled, timeout, autoApprove and type sse; a disabled server is never started and offers no nodes", async () => {
    expect(saved.status).toBe(200);
    const settings = SettingsSchema.parse(saved.body);
    expect(settings.mcpServers.everything).toMatchObject({ autoApprove: ["echo"], timeout: 120_000 });
    expect(settings.status).toMatchObject({ everything: { state: "ready", timeoutMs: 120_000 }, legacy: { state: "ready", transport: "sse" }, off: { state: "disabled" } });
    const types = NodeListSchema.parse((await t.call("GET", "/api/nodes")).body).nodes.map((n) => n.type);
    expect(types).toContain("mcp:legacy.echo");
    expect(types.filter((type) => type.startsWith("mcp:off."))).toEqual([]);
    expect(existsSync(marker)).toBe(false);
  });

  it("calls a legacy SSE server's tools", async () => {
    const sum = await resultOf("legacy-sum");
    expect(sum).toMatchObject({ ok: true, text: expect.stringContaining("42") });
  });

  it("refuses a timeout that reads as seconds, saying the unit", async () => {
    const put = await t.call("PUT", "/api/settings/mcp", { mcpServers: { everything: { command: process.execPath, args: [EVERYTHING], timeout: 60 } } });
    expect(put.status).toBe(400);
    expect(ErrorBodySchema.parse(put.body).error.message).toContain("milliseconds");
  });

  it("lets the owner's autoApprove answer an `ask` rule for those tools only, never a `deny`", async () => {
    expect((await t.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules: [{ action: "ask", tool: "mcp.*" }] })).status).toBe(200);
    const approved = await run("echo");
    expect(approved.run.outputs.result).toMatchObject({ ok: true, text: "Echo: approved" });
    // The audit log says what allowed the call.
    const audit = readFileSync(join(t.dataDir, "audit", "tools.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => z.looseObject({ tool: z.string(), status: z.string(), runId: z.string().optional(), permission: z.unknown().optional() }).parse(JSON.parse(line)));
    expect(audit).toContainEqual(
      expect.objectContaining({ tool: "mcp:everything.echo", status: "completed", runId: approved.run.id, permission: { decision: "allow", source: "autoApprove (Settings → MCP servers)" } }),
    );
    // get-sum is not approved: nobody can answer the ask in a plain run.
    expect(await resultOf("sum")).toMatchObject({ ok: false, error: { code: "E_PERMISSION_DENIED" } });
    expect((await t.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules: [{ action: "deny", tool: "mcp:everything.echo" }] })).status).toBe(200);
    expect(await resultOf("echo")).toMatchObject({ ok: false, error: { code: "E_PERMISSION_DENIED" } });
  });

  it("does not let an editor approve tools: their save is refused and the tool still needs asking", async () => {
    expect((await t.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules: [{ action: "ask", tool: "mcp.*" }] })).status).toBe(200);
    const editor = await createTestUser(t, "ed", "editor");
    const put = await editor.call("PUT", "/api/settings/mcp", { mcpServers: servers(["echo", "get-sum"]) });
    expect(put.status).toBe(403);
    expect(await resultOf("sum")).toMatchObject({ ok: false, error: { code: "E_PERMISSION_DENIED" } });
    expect(SettingsSchema.parse((await t.call("GET", "/api/settings/mcp")).body).mcpServers.everything).toMatchObject({ autoApprove: ["echo"] });
    expect((await t.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules: [] })).status).toBe(200);
  });

  it("fails the node and the run when the tool answers isError, with the server's message", async () => {
    const answer = await run("bad-args");
    expect(answer.run.status).toBe("failed");
    const call = answer.observations.find((o) => o.nodeId === "call");
    expect(call?.status).toBe("failed");
    expect(call?.error?.code).toBe("E_MCP_TOOL_ERROR");
    expect(call?.error?.message).toContain("resourceId");
  });
});
