import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError, ResourceUpdatedNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { delayChainWorkflow, startTestServer, templateWorkflow, waitFor, waitForRun, type TestServer } from "../testing/test-server.ts";
import { createTestUser, type TestUser } from "../testing/users.ts";

const RunListSchema = z.object({ runs: z.array(z.object({ id: z.string() })) });
const StartedSchema = z.object({ runId: z.string() });

let t: TestServer;
let viewer: TestUser;
const clients: Client[] = [];

async function connect(headers: Record<string, string>, capabilities: ConstructorParameters<typeof Client>[1] = {}): Promise<Client> {
  const client = new Client({ name: "weft-test", version: "1.0.0" }, capabilities);
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}
const owner = () => ({ authorization: `Bearer ${t.server.accessToken}` });

/** The JSON of a read resource's one text content. */
async function readJson(client: Client, uri: string): Promise<unknown> {
  const { contents } = await client.readResource({ uri });
  expect(contents).toHaveLength(1);
  const [content] = contents;
  return content && "text" in content ? JSON.parse(content.text) : undefined;
}

beforeAll(async () => {
  t = await startTestServer();
  for (const workflow of [templateWorkflow("notes"), templateWorkflow("deliberate"), delayChainWorkflow("delays", 4, 300)])
    expect((await t.call("POST", "/api/workflows", { workflow })).status).toBe(201);
  const agent = { id: "writer", name: "Writer", persona: "You write about {{topic}} for {{ audience }}; {{topic}} only.", deliberationWorkflowId: "deliberate" };
  expect((await t.call("POST", "/api/agents", agent)).status).toBe(201);
  viewer = await createTestUser(t, "vera", "viewer");
}, 120_000);
afterAll(async () => {
  for (const client of clients) await client.close();
  await t.stop();
});

describe("workflows and runs as MCP resources", () => {
  it("lists workflows and recent runs, names the templates, and reads a workflow's definition as JSON", async () => {
    const client = await connect(owner());
    const ran = (await client.callTool({ name: "notes", arguments: { topic: "resources" } })) as CallToolResult;
    const runId = String(ran._meta?.["weft/runId"]);
    const { resources } = await client.listResources();
    expect(resources).toContainEqual(expect.objectContaining({ uri: "weft://workflows/notes", mimeType: "application/json", title: "Notes" }));
    expect(resources).toContainEqual(expect.objectContaining({ uri: `weft://runs/${runId}`, mimeType: "application/json" }));
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((r) => r.uriTemplate)).toEqual(["weft://workflows/{id}", "weft://runs/{id}", "weft://runs/{id}/observations"]);

    const workflow = await client.readResource({ uri: "weft://workflows/notes" });
    expect(workflow.contents).toHaveLength(1);
    expect(workflow.contents[0]).toMatchObject({ uri: "weft://workflows/notes", mimeType: "application/json" });
    expect(await readJson(client, "weft://workflows/notes")).toMatchObject({ id: "notes", nodes: expect.arrayContaining([expect.objectContaining({ id: "fill" })]) });

    const run = await readJson(client, `weft://runs/${runId}`);
    expect(run).toMatchObject({ id: runId, status: "completed", outputs: { text: "Notes on resources" } });
    const observations = await readJson(client, `weft://runs/${runId}/observations`);
    expect(observations).toContainEqual(expect.objectContaining({ nodeId: "fill", outputs: { text: "Notes on resources" } }));
  });

  it("answers an unknown resource with the spec's not-found code", async () => {
    const client = await connect(owner());
    for (const uri of ["weft://workflows/missing", "weft://runs/missing", "weft://elsewhere/x"]) {
      const error: unknown = await client.readResource({ uri }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32002);
    }
  });

  it("tells a subscriber each change of a running run until it ends, and the last read shows the ending", async () => {
    const client = await connect(owner());
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    const { runId } = StartedSchema.parse((await t.call("POST", "/api/workflows/delays/runs", { inputs: {} })).body);
    const uri = `weft://runs/${runId}`;
    await client.subscribeResource({ uri });
    await client.subscribeResource({ uri: `${uri}/observations` });
    await waitForRun(t, runId);
    // The run's last event is published after its record is stored: wait for its update rather than for a time.
    await waitFor(async () => (updates.filter((u) => u === uri).length >= 2 ? true : undefined), 60_000, "resource updates");
    expect(await readJson(client, uri)).toMatchObject({ status: "completed" });
    expect(updates).toContain(`${uri}/observations`);
  });
});

describe("resource updates of a run with many fast changes", () => {
  it("are held to one per interval, and the run's ending is sent at once: the last read shows it", async () => {
    // An interval longer than the run: the first change is told at once, the ending at once, nothing between.
    const quiet = await startTestServer({ mcpResourceUpdateMs: 600_000 });
    try {
      expect((await quiet.call("POST", "/api/workflows", { workflow: delayChainWorkflow("many", 40, 50) })).status).toBe(201);
      const client = new Client({ name: "weft-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${quiet.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${quiet.server.accessToken}` } } }));
      clients.push(client);
      const updates: string[] = [];
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
      const { runId } = StartedSchema.parse((await quiet.call("POST", "/api/workflows/many/runs", { inputs: {} })).body);
      const uri = `weft://runs/${runId}`;
      await client.subscribeResource({ uri });
      await waitForRun(quiet, runId);
      // The first change at once and the ending at once (not after the interval): two.
      await waitFor(async () => (updates.filter((u) => u === uri).length >= 2 ? true : undefined), 60_000, "the ending's update");
      expect(await readJson(client, uri)).toMatchObject({ status: "completed" });
      // 40 nodes' events in many batches: without the interval each batch was one update (and one read of the run).
      expect(updates.filter((u) => u === uri)).toHaveLength(2);
    } finally {
      await quiet.stop();
    }
  });
});

describe("who reads what through /mcp", () => {
  it("a viewer's token reads workflows and runs but lists no tool and starts no run through a skill", async () => {
    const client = await connect(viewer.bearer);
    expect((await client.listTools()).tools).toEqual([]);
    expect(await readJson(client, "weft://workflows/notes")).toMatchObject({ id: "notes" });
    const before = RunListSchema.parse((await t.call("GET", "/api/runs?workflowId=notes")).body).runs.length;
    const error: unknown = await client.callTool({ name: "notes", arguments: { topic: "not for viewers" } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).message).toMatch(/FORBIDDEN: your role \(viewer\) may not run skills/);
    expect(RunListSchema.parse((await t.call("GET", "/api/runs?workflowId=notes")).body).runs.length).toBe(before);
  });

  it("a session answers only the user who opened it: another user's token naming it reads nothing", async () => {
    const ownerClient = await connect(owner());
    const transport = ownerClient.transport as StreamableHTTPClientTransport;
    const sessionId = transport.sessionId;
    expect(sessionId).toBeTruthy();
    const res = await t.fetch("/mcp", {
      method: "POST",
      headers: { ...viewer.bearer, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": String(sessionId), "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "resources/read", params: { uri: "weft://workflows/notes" } }),
    });
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain("Notes on");
  });
});

describe("agents' system prompts as MCP prompts", () => {
  it("lists each agent's prompt with the persona's placeholders as its arguments, and fills them in", async () => {
    const client = await connect(viewer.bearer);
    const { prompts } = await client.listPrompts();
    const writer = prompts.find((p) => p.name === "writer");
    expect(writer?.arguments).toEqual([expect.objectContaining({ name: "topic", required: true }), expect.objectContaining({ name: "audience", required: true })]);
    const got = await client.getPrompt({ name: "writer", arguments: { topic: "looms", audience: "{{topic}} fans" } });
    expect(got.messages).toEqual([{ role: "user", content: { type: "text", text: "You write about looms for {{topic}} fans; looms only." } }]);
    const missing: unknown = await client.getPrompt({ name: "writer", arguments: { topic: "looms" } }).catch((e: unknown) => e);
    expect((missing as McpError).message).toMatch(/needs the argument audience/);
  });
});
