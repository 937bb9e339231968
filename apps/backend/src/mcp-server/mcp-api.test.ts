import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError, type CallToolResult, type Progress } from "@modelcontextprotocol/sdk/types.js";
import { slowWorkflow, startTestServer, templateWorkflow, type TestServer } from "../testing/test-server.ts";
import { z } from "zod";
import { RunStatusSchema } from "../testing/answers.ts";

/** GET /api/runs: each run kept whole (loose), to be matched field by field. */
const RunListSchema = z.object({ runs: z.array(z.looseObject({})) });
const RunRecordSchema = z.object({ run: z.looseObject({ inputs: z.unknown(), outputs: z.unknown() }) });

let t: TestServer;
let client: Client;

beforeAll(async () => {
  t = await startTestServer();
  for (const workflow of [templateWorkflow("notes"), slowWorkflow("slow-skill"), { id: "plain", name: "Plain", nodes: [{ id: "c", type: "core:const-text", config: { value: "x" } }], edges: [] }]) {
    expect((await t.call("POST", "/api/workflows", { workflow })).status).toBe(201);
  }
  client = new Client({ name: "weft-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${t.server.accessToken}` } } }));
});
afterAll(async () => {
  await client.close();
  await t.stop();
});

const mcpHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const initialize = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });

describe("skills as MCP tools", () => {
  it("lists each skill, not other workflows, with its interface as the input and output schema", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["notes", "slow-skill"]);
    const notes = tools.find((tool) => tool.name === "notes");
    expect(notes?.title).toBe("Notes");
    expect(notes?.inputSchema).toMatchObject({ type: "object", properties: { topic: { type: "string" } }, required: ["topic"] });
    expect(notes?.outputSchema).toMatchObject({ type: "object", properties: { text: { type: "string" } } });
  });

  it("runs a called skill as a Weft run, answers with its outputs, and the run is in the run history", async () => {
    const result = (await client.callTool({ name: "notes", arguments: { topic: "MCP" } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ text: "Notes on MCP" });
    const runId = result._meta?.["weft/runId"];
    expect(typeof runId).toBe("string");
    const body = RunListSchema.parse((await t.call("GET", "/api/runs?workflowId=notes")).body);
    // The list carries summaries; the run itself carries its inputs and outputs.
    expect(body.runs).toContainEqual(expect.objectContaining({ id: runId, workflowId: "notes", status: "completed" }));
    const run = RunRecordSchema.parse((await t.call("GET", `/api/runs/${String(runId)}`)).body).run;
    expect(run).toMatchObject({ inputs: { topic: "MCP" }, outputs: { text: "Notes on MCP" } });
  });

  it("answers inputs the interface refuses with a tool error the model can read, and starts no run", async () => {
    const before = RunListSchema.parse((await t.call("GET", "/api/runs?workflowId=notes")).body).runs.length;
    const result = (await client.callTool({ name: "notes", arguments: {} })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([expect.objectContaining({ type: "text", text: expect.stringMatching(/^VALIDATION_FAILED: .*topic/) })]);
    expect(RunListSchema.parse((await t.call("GET", "/api/runs?workflowId=notes")).body).runs.length).toBe(before);
  });

  it("refuses a tool that is not a skill as invalid params, its code said once", async () => {
    const error: unknown = await client.callTool({ name: "plain", arguments: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((error as McpError).message).toMatch(/^MCP error -32602: There is no skill "plain"/);
  });

  it("reports each node of the skill's run as progress, in order, before the answer", async () => {
    const seen: Progress[] = [];
    const result = (await client.callTool({ name: "notes", arguments: { topic: "progress" } }, undefined, { onprogress: (p) => seen.push(p) })) as CallToolResult;
    expect(result.structuredContent).toEqual({ text: "Notes on progress" });
    const messages = seen.map((p) => p.message);
    expect(messages[0]).toBe(`Weft run ${String(result._meta?.["weft/runId"])} started`);
    // Fast nodes complete within their call (no node.started): each is reported once it finished, in the run's order.
    expect(messages.slice(1)).toEqual(["node topic (core:workflow-input) finished", "node fill (core:text-template) finished", "node out (core:workflow-output) finished"]);
    expect(seen.map((p) => p.progress)).toEqual(seen.map((_, i) => i + 1));
  });

  it("streams the answer: progress names the run while it goes on, and a run cancelled in Weft ends the call as an error", async () => {
    const call = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "slow-skill", arguments: {}, _meta: { progressToken: "p1" } } });
    const res = await t.fetch("/mcp", { method: "POST", headers: { ...mcpHeaders, "mcp-protocol-version": "2025-11-25", "accept-encoding": "br, gzip" }, body: call });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(res.headers.get("content-encoding")).toBeNull();
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("notifications/progress")) text += (await reader.read()).value ?? "";
    const runId = /Weft run ([\w-]+) started/.exec(text)?.[1];
    // The run takes 30 s unless cancelled: the progress arrived while it was still going, so nothing held the stream back.
    expect(RunStatusSchema.parse((await t.call("GET", `/api/runs/${runId}`)).body).run.status).toMatch(/^(queued|running)$/);
    expect((await t.call("POST", `/api/runs/${runId}/cancel`)).status).toBe(200);
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += chunk.value;
    expect(text).toContain("node wait (core:delay) started");
    const answer = JSON.parse(/^data: (.*"id":2.*)$/m.exec(text)?.[1] ?? "null");
    expect(answer.result).toMatchObject({ isError: true, content: [{ type: "text", text: expect.stringContaining("cancelled") }] });
  });
});

describe("who may call /mcp", () => {
  const send = (path: string, init: { method?: string; headers?: Record<string, string> } = {}) =>
    fetch(t.url + path, { method: init.method ?? "POST", headers: { ...mcpHeaders, ...init.headers }, ...(init.method === "GET" ? {} : { body: initialize }), redirect: "manual" });

  it("needs a credential on every method, GET too (it is not one of the editor's public files)", async () => {
    expect((await send("/mcp")).status).toBe(401);
    expect((await send("/mcp", { method: "GET" })).status).toBe(401);
    expect((await send("/mcp", { headers: { authorization: "Bearer wrong-token-of-some-length" } })).status).toBe(401);
  });

  it("names the Bearer scheme on a 401 (RFC 9110), without OAuth metadata, so the SDK's client asks for a token", async () => {
    const res = await send("/mcp");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="weft"');
    const anonymous = new Client({ name: "no-token", version: "1" });
    const error: unknown = await anonymous.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(401);
  });

  it("takes the token as ?token= for clients that cannot send headers, on /mcp alone", async () => {
    const token = encodeURIComponent(t.server.accessToken);
    expect((await send(`/mcp?token=${token}`)).status).toBe(200);
    expect((await send("/mcp?token=wrong-token-of-some-length")).status).toBe(401);
    expect((await send(`/api/runs?token=${token}`, { method: "GET" })).status).toBe(401);
  });

  it("refuses a foreign Host (421) and a foreign Origin (403) even with the token", async () => {
    const token = encodeURIComponent(t.server.accessToken);
    expect((await send(`/mcp?token=${token}`, { headers: { host: "evil.example.com" } })).status).toBe(421);
    expect((await send(`/mcp?token=${token}`, { headers: { origin: "http://evil.example.com" } })).status).toBe(403);
  });

  it("answers GET with 405 (a stateless server opens no stream of its own)", async () => {
    const res = await t.fetch("/mcp", { headers: { accept: "text/event-stream" } });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });
});
