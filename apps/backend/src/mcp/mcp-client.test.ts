import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import { z } from "zod";
import { startTestServer, tempDir, waitFor, waitForRun, type TestServer } from "../testing/test-server.ts";
import { ConversationAnswerSchema, ProfileIdAnswerSchema, SentMessageSchema, StartedRunSchema } from "../testing/answers.ts";
import { ErrorBodySchema } from "../testing/error-body.ts";

/** One MCP server's status in GET/PUT /api/settings/mcp, kept whole (loose). */
const McpServerStatusSchema = z.looseObject({ state: z.string(), restarts: z.number().int(), pid: z.number().int().optional(), lastCrash: z.string().optional() });
/** GET/PUT /api/settings/mcp: the configured servers (secrets masked) and each one's status. */
const McpSettingsSchema = z.object({ mcpServers: z.record(z.string(), z.unknown()), status: z.record(z.string(), McpServerStatusSchema) });
/** GET /api/nodes, as far as the MCP node types go. */
const NodeListSchema = z.object({ nodes: z.array(z.object({ type: z.string(), inputs: z.array(z.looseObject({})) })) });

const MODULES = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/", import.meta.url));
const EVERYTHING = join(MODULES, "server-everything/dist/index.js");
const MEMORY = join(MODULES, "server-memory/dist/index.js");
const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
const TOKEN = "mcp-remote-token-5f1e2d3c";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** A process is gone once /proc has no entry for it, or only a zombie's. */
function alive(pid: number): boolean {
  const status = `/proc/${pid}/status`;
  if (!existsSync(status)) return false;
  try {
    return !/^State:\s+Z/m.test(readFileSync(status, "utf8"));
  } catch {
    return false;
  }
}

/** A one-node workflow calling `type` with literal inputs, its outputs as workflow outputs. */
function toolWorkflow(id: string, type: string, inputs: Record<string, unknown>) {
  return {
    id,
    name: id,
    nodes: [
      { id: "call", type, inputs },
      { id: "ok", type: "core:workflow-output", config: { name: "ok", portType: "boolean" } },
      { id: "text", type: "core:workflow-output", config: { name: "text", portType: "string" } },
      { id: "result", type: "core:workflow-output", config: { name: "result", portType: "json" } },
    ],
    edges: [
      { id: "e1", source: "call", sourceHandle: "ok", target: "ok", targetHandle: "value" },
      { id: "e2", source: "call", sourceHandle: "text", target: "text", targetHandle: "value" },
      { id: "e3", source: "call", sourceHandle: "result", target: "result", targetHandle: "value" },
    ],
  };
}

/**
 * The MCP client against real servers from the npm registry: server-everything over stdio and over
 * Streamable HTTP, server-memory over stdio.
 */
describe("MCP servers as node types", () => {
  let t: TestServer;
  let llm: ScriptedLlmServer;
  let remote: ReturnType<typeof Bun.spawn>;
  let remoteUrl: string;

  const run = async (workflowId: string) => {
    const started = await t.call("POST", `/api/workflows/${workflowId}/runs`, { inputs: {} });
    expect(started.status).toBe(202);
    return waitForRun(t, StartedRunSchema.parse(started.body).runId, 60_000);
  };
  const status = async () => McpSettingsSchema.parse((await t.call("GET", "/api/settings/mcp")).body).status;
  const converse = async (agent: string, message: string) => {
    const sent = await t.call("POST", `/api/agents/${agent}/messages`, { message });
    expect(sent.status).toBe(202);
    return waitFor(
      async () => {
        const res = await t.call("GET", `/api/conversations/${SentMessageSchema.parse(sent.body).conversationId}`);
        const answer = ConversationAnswerSchema.parse(res.body);
        // The steps stay whole: they are searched as text.
        return answer.agent && !answer.agent.running && answer.steps.length > 0 ? z.looseObject({ steps: z.array(z.unknown()) }).parse(res.body) : undefined;
      },
      30_000,
      "the conversation to settle",
    );
  };

  beforeAll(async () => {
    const port = await freePort();
    remote = Bun.spawn([process.execPath, EVERYTHING, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdout: "ignore", stderr: "ignore" });
    remoteUrl = `http://127.0.0.1:${port}/mcp`;
    await waitFor(async () => (await fetch(remoteUrl, { method: "GET" }).catch(() => undefined)) ?? undefined, 60_000, "server-everything over HTTP to listen");
    llm = await startScriptedLlmServer();
    t = await startTestServer({ examplesDir: EXAMPLES });
  });

  afterAll(async () => {
    await t?.stop();
    await llm?.stop();
    remote?.kill();
  });

  it("stores the mcpServers JSON, starts the servers and reports each one's status, never returning env or header values", async () => {
    const put = await t.call("PUT", "/api/settings/mcp", {
      mcpServers: {
        everything: { command: process.execPath, args: [EVERYTHING] },
        memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: join(tempDir("weft-mcp-memory-"), "memory.jsonl") } },
        remote: { url: remoteUrl, headers: { Authorization: `Bearer ${TOKEN}` } },
      },
    });
    expect(put.status).toBe(200);
    expect(McpSettingsSchema.parse(put.body).status).toMatchObject({
      everything: { state: "ready", transport: "stdio", restarts: 0, pid: expect.any(Number) },
      memory: { state: "ready", transport: "stdio" },
      remote: { state: "ready", transport: "http" },
    });
    const get = await t.call("GET", "/api/settings/mcp");
    const settings = McpSettingsSchema.parse(get.body);
    expect(settings.mcpServers.remote).toEqual({ url: remoteUrl, headers: { Authorization: null } });
    expect(JSON.stringify(get.body)).not.toContain(TOKEN);

    // null keeps the stored secret; a null with nothing stored is refused, saying how to fix it.
    const refused = await t.call("PUT", "/api/settings/mcp", { mcpServers: { ...settings.mcpServers, remote: { url: remoteUrl, headers: { Authorization: null, "X-New": null } } } });
    expect(refused.status).toBe(400);
    expect(ErrorBodySchema.parse(refused.body).error.message).toContain("body.mcpServers.remote.headers.X-New");
  });

  it("refuses a server that is neither stdio nor HTTP, and a name that cannot be part of a node type", async () => {
    const neither = await t.call("PUT", "/api/settings/mcp", { mcpServers: { other: { args: ["a"] } } });
    expect(neither.status).toBe(400);
    expect(ErrorBodySchema.parse(neither.body).error.message).toContain("needs either `command`");
    const badName = await t.call("PUT", "/api/settings/mcp", { mcpServers: { "My Server": { command: "x" } } });
    expect(badName.status).toBe(400);
    expect(ErrorBodySchema.parse(badName.body).error.message).toContain("lower case");
    expect(Object.keys(McpSettingsSchema.parse((await t.call("GET", "/api/settings/mcp")).body).mcpServers)).toEqual(["everything", "memory", "remote"]);
  });

  it("lists each tool as a node type mcp:<server>.<tool> with ports from its input schema", async () => {
    const nodes = NodeListSchema.parse((await t.call("GET", "/api/nodes")).body).nodes;
    const byType = new Map(nodes.map((n) => [n.type, n]));
    expect(byType.get("mcp:everything.echo")?.inputs).toContainEqual(expect.objectContaining({ id: "message", type: "string", required: true }));
    expect(byType.get("mcp:remote.get-sum")?.inputs).toEqual(expect.arrayContaining([expect.objectContaining({ id: "a", type: "number" }), expect.objectContaining({ id: "b", type: "number" })]));
    expect(byType.get("mcp:memory.create-entities")?.inputs).toContainEqual(expect.objectContaining({ id: "entities", type: "array", required: true }));
  });

  it("calls MCP tools from workflow runs, over stdio and over Streamable HTTP", async () => {
    await t.call("POST", "/api/workflows", { workflow: toolWorkflow("mcp-echo", "mcp:everything.echo", { message: "hello over stdio" }) });
    await t.call("POST", "/api/workflows", { workflow: toolWorkflow("mcp-sum", "mcp:remote.get-sum", { a: 2, b: 40 }) });
    await t.call("POST", "/api/workflows", { workflow: toolWorkflow("mcp-remember", "mcp:memory.create-entities", { entities: [{ name: "Weft", entityType: "project", observations: ["weaves"] }] }) });
    const echo = await run("mcp-echo");
    expect(echo.run.status).toBe("completed");
    expect(echo.run.outputs).toMatchObject({ ok: true, text: "Echo: hello over stdio" });
    // Through the tool host: audited like every other tool call.
    expect(echo.run.id).toEqual(expect.any(String));
    const audit = readFileSync(join(t.dataDir, "audit", "tools.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { tool: string; status: string; runId?: string });
    expect(audit).toContainEqual(expect.objectContaining({ tool: "mcp:everything.echo", status: "completed", runId: echo.run.id }));
    const sum = await run("mcp-sum");
    expect(sum.run.outputs.text).toContain("42");
    const remembered = await run("mcp-remember");
    expect(remembered.run.outputs).toMatchObject({ ok: true });
    expect(remembered.run.outputs.text).toContain("Weft");
  });

  it("lets agents call MCP tools in both protocols", async () => {
    const profile = await t.call("POST", "/api/llm-profiles", { name: "scripted", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0 });
    const base = { deliberationWorkflowId: "agent-deliberation", llmProfileId: ProfileIdAnswerSchema.parse(profile.body).profile.id };
    expect((await t.call("POST", "/api/agents", { id: "mcp-xml", name: "MCP XML", ...base, protocol: "action-xml", tools: ["mcp:everything.get-sum"] })).status).toBe(201);
    expect((await t.call("POST", "/api/agents", { id: "mcp-native", name: "MCP native", ...base, protocol: "openai-tools", tools: ["mcp:remote.echo"] })).status).toBe(201);

    llm.enqueue({ kind: "text", chunks: ["<ACTION>\n  <mcp_everything_get_sum>\n    <a>20</a>\n    <b>22</b>\n  </mcp_everything_get_sum>\n</ACTION>"] }, { kind: "text", chunks: ["The sum is 42."] });
    const xml = await converse("mcp-xml", "Add 20 and 22");
    expect(JSON.stringify(xml.steps)).toContain("The sum of 20 and 22 is 42");

    llm.enqueue({ kind: "tool_calls", calls: [{ name: "mcp_remote_echo", arguments: JSON.stringify({ message: "native hello" }) }] }, { kind: "text", chunks: ["Echoed."] });
    const native = await converse("mcp-native", "Echo native hello");
    expect(JSON.stringify(native.steps)).toContain("Echo: native hello");
  });

  it("lets a permission rule on mcp.* or mcp:<server>.<tool> deny MCP calls", async () => {
    for (const tool of ["mcp.*", "mcp:everything.echo"]) {
      expect((await t.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules: [{ action: "deny", tool }] })).status).toBe(200);
      const denied = await run("mcp-echo");
      expect(denied.run.outputs).toMatchObject({ ok: false, result: { error: { code: "E_PERMISSION_DENIED" } } });
    }
    expect((await t.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules: [] })).status).toBe(200);
    expect((await run("mcp-echo")).run.outputs.ok).toBe(true);
  });

  it("restarts a crashed stdio server, its restart visible in the status, and its tools work again", async () => {
    const before = (await status()).everything!;
    process.kill(before.pid!, "SIGKILL");
    const after = await waitFor(
      async () => {
        const now = (await status()).everything!;
        return now.restarts === before.restarts + 1 && now.state === "ready" ? now : undefined;
      },
      20_000,
      "the crashed server to be restarted",
    );
    expect(after.pid).not.toBe(before.pid);
    expect(after.lastCrash).toContain("exited unexpectedly");
    expect((await run("mcp-echo")).run.outputs.ok).toBe(true);
  });

  it("stops every stdio server with Weft: no process is left behind", async () => {
    const all = await status();
    const pids = [all.everything?.pid, all.memory?.pid] as number[];
    expect(pids.every(alive)).toBe(true);
    await t.stop();
    expect(pids.filter(alive)).toEqual([]);
  });
});
