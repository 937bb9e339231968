import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, type CallToolResult, type CreateMessageRequest, type CreateMessageResult } from "@modelcontextprotocol/sdk/types.js";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import type { WorkflowInput } from "@weft/types";
import { z } from "zod";
import { startTestServer, type TestServer } from "../testing/test-server.ts";
import { MAX_SAMPLED_CHARS } from "./client-sampling.ts";

let t: TestServer;
let llm: ScriptedLlmServer;
const clients: Client[] = [];

const RunSchema = z.object({ observations: z.array(z.looseObject({ nodeId: z.string(), outputs: z.record(z.string(), z.unknown()) })) });
const UsageSchema = z.object({ rows: z.array(z.looseObject({ profile: z.string().nullable().optional(), calls: z.number(), totalTokens: z.number(), costUsd: z.number().nullable() })) });

/** A skill: topic → llm:chat (the scripted profile; `callerModel` as given) → text. */
function askSkill(id: string, profileId: string, callerModel: "no" | "preferred" | "required"): WorkflowInput {
  return {
    id,
    name: id,
    nodes: [
      { id: "topic", type: "core:workflow-input", config: { name: "topic", portType: "string" } },
      { id: "ask", type: "llm:chat", config: { profileId, callerModel, maxTokens: 300 }, inputs: { system: "Answer in one line." } },
      { id: "out", type: "core:workflow-output", config: { name: "text", portType: "string" } },
    ],
    edges: [
      { id: "e1", source: "topic", sourceHandle: "value", target: "ask", targetHandle: "prompt" },
      { id: "e2", source: "ask", sourceHandle: "text", target: "out", targetHandle: "value" },
    ],
  };
}

/** A client of the owner's token; with `answer`, it declares sampling and answers each request so. */
async function connect(answer?: (request: CreateMessageRequest) => CreateMessageResult): Promise<Client> {
  const client = new Client({ name: "weft-test", version: "1.0.0" }, answer ? { capabilities: { sampling: {} } } : {});
  if (answer) client.setRequestHandler(CreateMessageRequestSchema, (request) => answer(request));
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${t.server.accessToken}` } } }));
  clients.push(client);
  return client;
}

const reply = (text: string): CreateMessageResult => ({ role: "assistant", content: { type: "text", text }, model: "client-model-7", stopReason: "endTurn" });

beforeAll(async () => {
  llm = await startScriptedLlmServer();
  t = await startTestServer();
  const profile = await t.call("POST", "/api/llm-profiles", { name: "scripted", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0 });
  const profileId = z.object({ profile: z.object({ id: z.string() }) }).parse(profile.body).profile.id;
  for (const workflow of [askSkill("ask-preferred", profileId, "preferred"), askSkill("ask-required", profileId, "required"), askSkill("ask-profile", profileId, "no")]) {
    const saved = await t.call("POST", "/api/workflows", { workflow });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
  }
}, 120_000);
afterAll(async () => {
  for (const client of clients) await client.close();
  await t.stop();
  await llm.stop();
});

describe("an LLM node answered by the calling MCP client's model (sampling)", () => {
  it("asks a client that offers sampling with the node's prompt; the skill's output is the client's answer, at no cost to Weft", async () => {
    const asked: CreateMessageRequest["params"][] = [];
    const client = await connect((request) => {
      asked.push(request.params);
      return reply("Sampled: tides follow the moon.");
    });
    const before = llm.chatBodies().length;
    const result = (await client.callTool({ name: "ask-preferred", arguments: { topic: "Why do tides happen?" } }, undefined, { timeout: 120_000 })) as CallToolResult;
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(result.structuredContent).toEqual({ text: "Sampled: tides follow the moon." });
    expect(asked).toEqual([expect.objectContaining({ systemPrompt: "Answer in one line.", maxTokens: 300, messages: [{ role: "user", content: { type: "text", text: "Why do tides happen?" } }] })]);
    // The profile's LLM was not asked.
    expect(llm.chatBodies().length).toBe(before);
    const runId = String(result._meta?.["weft/runId"]);
    const { observations } = RunSchema.parse((await t.call("GET", `/api/runs/${runId}`)).body);
    expect(observations.find((o) => o.nodeId === "ask")?.outputs.usage).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0, source: "client" });
    const usage = UsageSchema.parse((await t.call("GET", `/api/usage?runId=${runId}&groupBy=profile`)).body);
    expect(usage.rows).toEqual([expect.objectContaining({ profile: "mcp-client", calls: 1, totalTokens: 0, costUsd: 0 })]);
  });

  it("a client without sampling: the node's LLM profile answers", async () => {
    llm.enqueue({ kind: "text", chunks: ["From the ", "profile."] });
    const before = llm.chatBodies().length;
    const client = await connect();
    const result = (await client.callTool({ name: "ask-preferred", arguments: { topic: "profile please" } }, undefined, { timeout: 120_000 })) as CallToolResult;
    expect(result.structuredContent).toEqual({ text: "From the profile." });
    expect(llm.chatBodies().slice(before)).toEqual([expect.objectContaining({ messages: expect.arrayContaining([{ role: "user", content: "profile please" }]) })]);
  });

  it("a node not opted in uses its profile even for a client that offers sampling, which is never asked", async () => {
    llm.enqueue({ kind: "text", chunks: ["Profile only."] });
    let asked = 0;
    const client = await connect(() => {
      asked += 1;
      return reply("should not be used");
    });
    const result = (await client.callTool({ name: "ask-profile", arguments: { topic: "no sampling" } }, undefined, { timeout: 120_000 })) as CallToolResult;
    expect(result.structuredContent).toEqual({ text: "Profile only." });
    expect(asked).toBe(0);
  });

  it("a node that requires the caller's model fails precisely for a client without sampling, and the profile is not asked", async () => {
    const before = llm.chatBodies().length;
    const client = await connect();
    const result = (await client.callTool({ name: "ask-required", arguments: { topic: "x" } }, undefined, { timeout: 120_000 })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([expect.objectContaining({ type: "text", text: expect.stringContaining("CALLER_MODEL_UNAVAILABLE") })]);
    expect(llm.chatBodies().length).toBe(before);
  });

  it("a client's answer over the size limit fails the node rather than entering the run", async () => {
    const client = await connect(() => reply("x".repeat(MAX_SAMPLED_CHARS + 1)));
    const result = (await client.callTool({ name: "ask-required", arguments: { topic: "long" } }, undefined, { timeout: 120_000 })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([expect.objectContaining({ text: expect.stringMatching(/BAD_RESPONSE.*at most 200000/) })]);
  });
});
