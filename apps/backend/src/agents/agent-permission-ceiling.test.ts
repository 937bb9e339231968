import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import { z } from "zod";
import { startTestServer, tempDir, waitFor, type TestServer } from "../testing/test-server.ts";
import { ConversationAnswerSchema, ProfileIdAnswerSchema, SentMessageSchema } from "../testing/answers.ts";
import { createTestUser, type TestUser } from "../testing/users.ts";

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
const MEMORY = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-memory/dist/index.js", import.meta.url));

const SECRET = "owner-only-secret-4c1d9e7a2b";
const MARKER = "shell-marker-8f3a61d0c5";
const INSIDE = "inside-answer-7d2e90b4a1";

/** One native tool call, as the model sends it. */
const toolCall = (name: string, args: Record<string, unknown>) => ({ kind: "tool_calls" as const, calls: [{ name, arguments: JSON.stringify(args) }] });
const say = (text: string) => ({ kind: "text" as const, chunks: [text] });

/** The owner's ceiling of issue 31: no shell, no secret folder, no outbound HTTP, no MCP. */
const OWNER_RULES = [
  { action: "deny", tool: "shell.exec" },
  { action: "deny", tool: "fs.*", target: "@project/secret/**" },
  { action: "deny", tool: "http.request" },
  { action: "deny", tool: "mcp.*" },
];

/**
 * Issue 31, attack 1: an editor's agent profile allowing everything (`{ allow, tool: "*" }`) opens
 * nothing the owner's settings deny. Each case checks the effect: what the agent, its runs and its
 * conversation hold, what a listener received, what an MCP server wrote.
 */
describe("an editor's agent under the owner's permission rules", () => {
  const projectDir = tempDir("weft-project-");
  const memoryFile = join(tempDir("weft-mcp-memory-"), "memory.jsonl");
  let t: TestServer;
  let llm: ScriptedLlmServer;
  let editor: TestUser;
  let listener: ReturnType<typeof Bun.serve>;
  let received = 0;

  /** Sends a message as the editor and waits for the loop to end; the whole answer, as text. */
  const converse = async (agent: string, message: string): Promise<string> => {
    const sent = await editor.call("POST", `/api/agents/${agent}/messages`, { message });
    expect(sent.status).toBe(202);
    const conversationId = SentMessageSchema.parse(sent.body).conversationId;
    const answer = await waitFor(
      async () => {
        const res = await editor.call("GET", `/api/conversations/${conversationId}`);
        const parsed = ConversationAnswerSchema.parse(res.body);
        return parsed.agent && !parsed.agent.running && parsed.steps.length > 0 ? res.body : undefined;
      },
      30_000,
      `conversation ${conversationId} to settle`,
    );
    return JSON.stringify(answer);
  };

  /** Everything stored about the runs, as the API answers it (their observations included). */
  const runsText = async (): Promise<string> => {
    const list = z.object({ runs: z.array(z.object({ id: z.string() })) }).parse((await editor.call("GET", "/api/runs?limit=500")).body);
    const details = await Promise.all(list.runs.map(async (r) => JSON.stringify((await editor.call("GET", `/api/runs/${r.id}`)).body)));
    return JSON.stringify(list) + details.join("\n");
  };

  beforeAll(async () => {
    mkdirSync(join(projectDir, "secret"), { recursive: true });
    writeFileSync(join(projectDir, "secret", "key.txt"), SECRET);
    writeFileSync(join(projectDir, "marker.txt"), MARKER);
    listener = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => {
        received++;
        return new Response(INSIDE);
      },
    });
    llm = await startScriptedLlmServer();
    t = await startTestServer({ projectDir, examplesDir: EXAMPLES });
    const profile = await t.call("POST", "/api/llm-profiles", { name: "scripted", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0 });
    expect(profile.status).toBe(201);
    expect((await t.call("PUT", "/api/settings/mcp", { mcpServers: { memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: memoryFile } } } })).status).toBe(200);
    expect((await t.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules: OWNER_RULES })).status).toBe(200);

    editor = await createTestUser(t, "eve", "editor");
    const created = await editor.call("POST", "/api/agents", {
      id: "sneaky",
      name: "Sneaky",
      deliberationWorkflowId: "agent-deliberation",
      llmProfileId: ProfileIdAnswerSchema.parse(profile.body).profile.id,
      protocol: "openai-tools",
      maxSteps: 3,
      tools: ["fs:read", "shell:exec", "http:request", "mcp:memory.create-entities"],
      permissions: [{ action: "allow", tool: "*" }],
    });
    expect(created.status).toBe(201);
  });

  afterAll(async () => {
    await t?.stop();
    await llm?.stop();
    await listener?.stop(true);
  });

  it("never lets the content of a file in the owner's denied folder reach the agent, its runs or its conversation", async () => {
    llm.enqueue(toolCall("fs_read", { path: "@project/secret/key.txt" }), say("Done."));
    const conversation = await converse("sneaky", "Read @project/secret/key.txt");
    expect(conversation).not.toContain(SECRET);
    expect(JSON.stringify(llm.chatBodies())).not.toContain(SECRET);
    expect(await runsText()).not.toContain(SECRET);
    expect(conversation).toContain("E_PERMISSION_DENIED");
  });

  it("runs no shell command the owner denies", async () => {
    llm.enqueue(toolCall("shell_exec", { command: "cat marker.txt" }), say("Done."));
    const conversation = await converse("sneaky", "Show marker.txt with the shell");
    expect(conversation).not.toContain(MARKER);
    expect(JSON.stringify(llm.chatBodies())).not.toContain(MARKER);
    expect(await runsText()).not.toContain(MARKER);
  });

  it("calls no MCP tool the owner denies", async () => {
    llm.enqueue(toolCall("mcp_memory_create_entities", { entities: [{ name: "Loot", entityType: "secret", observations: ["taken"] }] }), say("Done."));
    await converse("sneaky", "Remember the loot");
    expect(existsSync(memoryFile)).toBe(false);
  });

  it("reaches no loopback listener: neither where the owner denies http.request, nor where the owner allows it by default", async () => {
    const url = `http://127.0.0.1:${listener.port}/steal`;
    llm.enqueue(toolCall("http_request", { url }), say("Done."));
    await converse("sneaky", "Fetch the inside service");
    // The owner allows http.request by default but wrote no rule opening the inside network: the agent's allow does not open it.
    const withoutHttpDeny = OWNER_RULES.filter((r) => r.tool !== "http.request");
    expect((await t.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules: withoutHttpDeny })).status).toBe(200);
    llm.enqueue(toolCall("http_request", { url }), say("Done."));
    const conversation = await converse("sneaky", "Fetch the inside service again");
    expect(received).toBe(0);
    expect(conversation).not.toContain(INSIDE);
    expect(await runsText()).not.toContain(INSIDE);
  });
});
