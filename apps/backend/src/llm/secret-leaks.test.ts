import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import { fileURLToPath } from "node:url";
import { startTestServer, templateWorkflow, waitFor, waitForRun, type TestServer } from "../testing/test-server.ts";
import { capturingLogger, dbBytes } from "../testing/leak-probes.ts";
import { z } from "zod";
import { AgentProfileSchema } from "@weft/types";
import { StartedRunSchema } from "../testing/answers.ts";
import { LlmProfileAnswerSchema, LlmProfileTestSchema } from "../testing/llm-profile-view.ts";

/** PUT /api/llm-profiles/:id: the profile, and whether (and why) its key was cleared. */
const ProfileUpdateAnswer = LlmProfileAnswerSchema.extend({ apiKeyCleared: z.boolean().optional(), notice: z.string().optional() });

const KEY = "sk-live-Zq81Wm3Np0Rt5Vy7Xb2Cd4Fg6Hj9KlEchoedBackKey7e1d";
const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));

let trusted: ScriptedLlmServer;
let attacker: ScriptedLlmServer;
let t: TestServer;
const logLines: string[] = [];

beforeAll(async () => {
  trusted = await startScriptedLlmServer({ model: "gpt-test" });
  attacker = await startScriptedLlmServer({ model: "gpt-test" });
  t = await startTestServer({ logger: capturingLogger(logLines), demoLlm: false });
});
afterAll(async () => {
  await t.stop();
  await trusted.stop();
  await attacker.stop();
});

describe("an LLM key never follows a changed endpoint", () => {
  it("clears the stored key when baseUrl changes, so the connection test sends no key to the new address", async () => {
    const created = await t.call("POST", "/api/llm-profiles", { name: "Moving", baseUrl: trusted.baseUrl, model: "gpt-test", apiKey: KEY });
    const id = LlmProfileAnswerSchema.parse(created.body).profile.id;

    const moved = await t.call("PUT", `/api/llm-profiles/${id}`, { baseUrl: attacker.baseUrl });
    expect(moved.status).toBe(200);
    attacker.enqueue({ kind: "text", chunks: ["pong"] });
    await t.call("POST", `/api/llm-profiles/${id}/test`);
    expect(attacker.requests.length).toBeGreaterThan(0);
    for (const request of attacker.requests) expect(JSON.stringify(request)).not.toContain(KEY);

    // The answer says so, and what to do.
    expect(ProfileUpdateAnswer.parse(moved.body).profile).toMatchObject({ baseUrl: attacker.baseUrl, hasApiKey: false, apiKeyMasked: null });
    expect(ProfileUpdateAnswer.parse(moved.body).apiKeyCleared).toBe(true);
    expect(ProfileUpdateAnswer.parse(moved.body).notice).toMatch(/enter the API key again/i);
  });

  it("keeps a key given in the same request, and the key when the address stays the same", async () => {
    const created = await t.call("POST", "/api/llm-profiles", { name: "Rekeyed", baseUrl: trusted.baseUrl, model: "gpt-test", apiKey: KEY });
    const id = LlmProfileAnswerSchema.parse(created.body).profile.id;
    const same = await t.call("PUT", `/api/llm-profiles/${id}`, { baseUrl: trusted.baseUrl, name: "Rekeyed again" });
    expect(ProfileUpdateAnswer.parse(same.body).profile.hasApiKey).toBe(true);
    expect(ProfileUpdateAnswer.parse(same.body).apiKeyCleared).toBe(false);

    const newKey = "sk-attacker-owned-0000000011112222";
    const moved = await t.call("PUT", `/api/llm-profiles/${id}`, { baseUrl: attacker.baseUrl, apiKey: newKey });
    expect(ProfileUpdateAnswer.parse(moved.body).profile).toMatchObject({ hasApiKey: true, apiKeyMasked: "sk-…2222" });
    expect(ProfileUpdateAnswer.parse(moved.body).apiKeyCleared).toBe(false);
    attacker.enqueue({ kind: "text", chunks: ["pong"] });
    expect(LlmProfileTestSchema.parse((await t.call("POST", `/api/llm-profiles/${id}/test`)).body).ok).toBe(true);
    expect(attacker.requests.at(-1)?.headers.authorization).toBe(`Bearer ${newKey}`);
    for (const request of attacker.requests) expect(JSON.stringify(request)).not.toContain(KEY);
  });
});

describe("a provider error that echoes the key", () => {
  it("is stored and shown with the key redacted: runs, events, observations, logs and the database file", async () => {
    const created = await t.call("POST", "/api/llm-profiles", { name: "Echoing", baseUrl: trusted.baseUrl, model: "gpt-test", apiKey: KEY, maxRetries: 0 });
    const profileId = LlmProfileAnswerSchema.parse(created.body).profile.id;
    const saved = await t.call("POST", "/api/workflows", {
      workflow: { id: "ask", name: "Ask", nodes: [{ id: "chat", type: "llm:chat", config: { profileId }, inputs: { prompt: "hello" } }], edges: [] },
    });
    expect(saved.status).toBe(201);
    trusted.enqueue({ kind: "http_error", status: 401, message: `Incorrect API key provided: ${KEY}. You can find your API key at https://example.invalid.`, code: "invalid_api_key" });

    const started = await t.call("POST", "/api/workflows/ask/runs", {});
    const runId = StartedRunSchema.parse(started.body).runId;
    const answer = await waitForRun(t, runId);
    expect(answer.run.status).toBe("failed");
    await t.call("GET", "/api/health"); // every write of the run has reached the files by now

    const answers = [answer, (await t.call("GET", `/api/runs/${runId}`)).body, (await t.call("GET", "/api/runs")).body, (await t.call("GET", `/api/runs/${runId}/events`)).body];
    for (const body of answers) expect(JSON.stringify(body)).not.toContain(KEY);
    const bytes = dbBytes(t.dataDir);
    expect(bytes.includes(Buffer.from(KEY))).toBe(false);
    expect(logLines.join("\n")).not.toContain(KEY);

    // The error is still there to debug with: only the key is replaced, by the profile's name.
    const failed = answer.observations.find((o: { nodeId: string }) => o.nodeId === "chat");
    expect(failed?.error?.message).toContain("Incorrect API key provided: [redacted:Echoing]");
    expect(JSON.stringify(answers[3])).toContain("[redacted:Echoing]");
    expect(bytes.includes(Buffer.from("[redacted:Echoing]"))).toBe(true);
  });
});

describe("an agent whose LLM echoes the key", () => {
  it("keeps its conversation, steps, runs and events free of the key", async () => {
    const lines: string[] = [];
    const a = await startTestServer({ logger: capturingLogger(lines), examplesDir: EXAMPLES });
    try {
      const profile = await a.call("POST", "/api/llm-profiles", { name: "Agent LLM", baseUrl: trusted.baseUrl, model: "gpt-test", apiKey: KEY, maxRetries: 0 });
      const base = z.object({ agent: AgentProfileSchema }).parse((await a.call("GET", "/api/agents/text-helper")).body).agent;
      await a.call("PUT", "/api/agents/text-helper", { agent: { ...base, llmProfileId: LlmProfileAnswerSchema.parse(profile.body).profile.id }, baseRevision: base.revision });
      trusted.enqueue({ kind: "http_error", status: 401, message: `Incorrect API key provided: ${KEY}`, code: "invalid_api_key" });
      const sent = await a.call("POST", "/api/agents/text-helper/messages", { message: "uppercase: hi" });
      const id = z.object({ conversationId: z.string() }).parse(sent.body).conversationId;
      const done = await waitFor(async () => {
        const res = await a.call("GET", `/api/conversations/${id}`);
        // The answer stays whole (it is searched for the key); only its agent state is read.
        const agent = z.object({ agent: z.object({ running: z.boolean() }).optional() }).parse(res.body).agent;
        return agent && !agent.running ? res.body : undefined;
      }, 60_000);
      const runIds = JSON.stringify(done).match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g) ?? [];
      const answers = [done, (await a.call("GET", `/api/streams/${id}/events`)).body];
      for (const runId of new Set(runIds)) answers.push((await a.call("GET", `/api/runs/${runId}`)).body, (await a.call("GET", `/api/runs/${runId}/events`)).body);
      for (const body of answers) expect(JSON.stringify(body)).not.toContain(KEY);
      await a.call("GET", "/api/health");
      expect(dbBytes(a.dataDir).includes(Buffer.from(KEY))).toBe(false);
      expect(lines.join("\n")).not.toContain(KEY);
      // The failure itself is kept, so the user sees why the agent stopped.
      expect(JSON.stringify(answers)).toContain("[redacted:Agent LLM]");
    } finally {
      await a.stop();
    }
  });
});

describe("the server's own secrets", () => {
  it("the access token and the master key are redacted from runs like an LLM key", async () => {
    const masterKey = readFileSync(join(t.dataDir, "master.key"), "utf8").trim();
    await t.call("POST", "/api/workflows", { workflow: templateWorkflow("echo", "{{0}}") });
    for (const [secret, label] of [
      [t.server.accessToken, "[redacted:access token]"],
      [masterKey, "[redacted:master key]"],
    ]) {
      const started = await t.call("POST", "/api/workflows/echo/runs", { inputs: { topic: `pasted ${secret}` } });
      const answer = await waitForRun(t, StartedRunSchema.parse(started.body).runId);
      expect(JSON.stringify(answer)).not.toContain(secret);
      expect(answer.run.outputs.text).toBe(`pasted ${label}`);
      await t.call("GET", "/api/health");
      expect(dbBytes(t.dataDir).includes(Buffer.from(secret))).toBe(false);
    }
  });
});
