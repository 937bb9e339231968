import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import { startTestServer, tempDir, type TestServer } from "../testing/test-server.ts";
import { capturingLogger, dbBytes } from "../testing/leak-probes.ts";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { LlmProfileAnswerSchema, LlmProfileListSchema, LlmProfileTestSchema } from "../testing/llm-profile-view.ts";

const KEY = "sk-live-Q7f3ZpXw9LmN2bV8cR4tY6uH1jK5sD0aTopSecretKey9f2c";

let llm: ScriptedLlmServer;
let t: TestServer;
const logLines: string[] = [];

beforeAll(async () => {
  llm = await startScriptedLlmServer({ model: "gpt-test" });
  t = await startTestServer({ logger: capturingLogger(logLines) });
});
afterAll(async () => {
  await t.stop();
  await llm.stop();
});

describe("LLM profiles", () => {
  let id: string;

  it("starts with the demo LLM as the default profile, and its connection test passes", async () => {
    const profiles = LlmProfileListSchema.parse((await t.call("GET", "/api/llm-profiles")).body).profiles;
    expect(profiles).toHaveLength(1);
    expect(profiles[0]).toMatchObject({ id: "demo", provider: "demo", isDefault: true, hasApiKey: false, apiKeyMasked: null });
    expect(profiles[0].baseUrl).toBe(t.server.demoLlmBaseUrl);
    const test = (await t.call("POST", "/api/llm-profiles/demo/test")).body;
    expect(test).toMatchObject({ ok: true, model: "weft-demo" });
  });

  it("stores the key encrypted and only ever answers with a mask", async () => {
    const created = await t.call("POST", "/api/llm-profiles", { name: "Hosted GPT", baseUrl: llm.baseUrl, model: "gpt-test", apiKey: KEY, timeoutMs: 5000, contextWindow: 128000 });
    expect(created.status).toBe(201);
    id = LlmProfileAnswerSchema.parse(created.body).profile.id;
    expect(id).toBe("hosted-gpt");
    expect(LlmProfileAnswerSchema.parse(created.body).profile).toMatchObject({ apiKeyMasked: "sk-…9f2c", hasApiKey: true, isDefault: false, healthStatus: "unknown" });
    expect(LlmProfileAnswerSchema.parse(created.body).profile.apiKey).toBeUndefined();

    for (const path of ["/api/llm-profiles", `/api/llm-profiles/${id}`]) {
      const res = await t.fetch(path);
      expect(await res.text()).not.toContain(KEY.slice(8, 30));
    }
    await t.call("GET", "/api/health"); // any later write has happened; the WAL holds the newest pages
    const bytes = dbBytes(t.dataDir);
    expect(bytes.includes(Buffer.from("Hosted GPT"))).toBe(true); // the profile is in these files…
    expect(bytes.includes(Buffer.from(KEY))).toBe(false); // …its key is not, in clear
    expect(bytes.includes(Buffer.from(KEY.slice(8, 40)))).toBe(false);
  });

  it("tests the connection with the decrypted key", async () => {
    llm.enqueue({ kind: "text", chunks: ["pong"] });
    const res = await t.call("POST", `/api/llm-profiles/${id}/test`);
    expect(res.body).toMatchObject({ ok: true, model: "gpt-test" });
    expect(llm.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(LlmProfileAnswerSchema.parse((await t.call("GET", `/api/llm-profiles/${id}`)).body).profile.healthStatus).toBe("ok");
  });

  it("reports a refused key (401) with a hint, without echoing the key", async () => {
    llm.enqueue({ kind: "http_error", status: 401, message: `Incorrect API key provided: ${KEY}`, code: "invalid_api_key" });
    const res = await t.call("POST", `/api/llm-profiles/${id}/test`);
    const tested = LlmProfileTestSchema.parse(res.body);
    expect(tested.ok).toBe(false);
    expect(tested.error?.code).toBe("AUTH");
    expect(tested.error?.hint).toMatch(/API key/);
    expect(JSON.stringify(res.body)).not.toContain(KEY);
    expect(tested.error?.message).toContain("[redacted:Hosted GPT]");
    expect(LlmProfileAnswerSchema.parse((await t.call("GET", `/api/llm-profiles/${id}`)).body).profile.healthStatus).toBe("failed");
  });

  it("reports an unknown model, a timeout and an unreachable URL as distinct causes", async () => {
    llm.enqueue({ kind: "http_error", status: 404, message: "The model `gpt-nope` does not exist", code: "model_not_found" });
    const notFound = LlmProfileTestSchema.parse((await t.call("POST", `/api/llm-profiles/${id}/test`)).body);
    expect(notFound.error?.code).toBe("MODEL_NOT_FOUND");
    expect(notFound.error?.hint).toContain("gpt-test");

    await t.call("PUT", `/api/llm-profiles/${id}`, { timeoutMs: 1000 });
    llm.enqueue({ kind: "text", chunks: ["late"], delayMs: 3000 });
    const timeout = LlmProfileTestSchema.parse((await t.call("POST", `/api/llm-profiles/${id}/test`)).body);
    expect(timeout.error?.code).toBe("TIMEOUT");
    expect(timeout.error?.hint).toContain("timeout");

    const unreachable = await t.call("POST", "/api/llm-profiles", { name: "Nowhere", baseUrl: "http://127.0.0.1:9/v1", model: "m", timeoutMs: 2000 });
    const network = LlmProfileTestSchema.parse((await t.call("POST", `/api/llm-profiles/${LlmProfileAnswerSchema.parse(unreachable.body).profile.id}/test`)).body);
    expect(network.error?.code).toBe("NETWORK");
    expect(network.error?.hint).toContain("http://127.0.0.1:9/v1");
  });

  it("keeps the key when PUT omits it, replaces it when given, removes it with null", async () => {
    await t.call("PUT", `/api/llm-profiles/${id}`, { name: "Renamed", timeoutMs: 5000 });
    llm.enqueue({ kind: "text", chunks: ["pong"] });
    expect(LlmProfileTestSchema.parse((await t.call("POST", `/api/llm-profiles/${id}/test`)).body).ok).toBe(true);
    expect(llm.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);

    const replaced = await t.call("PUT", `/api/llm-profiles/${id}`, { apiKey: "sk-other-0000000000001111" });
    expect(LlmProfileAnswerSchema.parse(replaced.body).profile).toMatchObject({ name: "Renamed", apiKeyMasked: "sk-…1111", healthStatus: "unknown" });
    const removed = await t.call("PUT", `/api/llm-profiles/${id}`, { apiKey: null });
    expect(LlmProfileAnswerSchema.parse(removed.body).profile).toMatchObject({ hasApiKey: false, apiKeyMasked: null });
    await t.call("PUT", `/api/llm-profiles/${id}`, { apiKey: KEY });
  });

  it("keeps exactly one default profile", async () => {
    const made = await t.call("PUT", `/api/llm-profiles/${id}`, { isDefault: true });
    expect(LlmProfileAnswerSchema.parse(made.body).profile.isDefault).toBe(true);
    const all = LlmProfileListSchema.parse((await t.call("GET", "/api/llm-profiles")).body).profiles;
    expect(all.filter((p) => p.isDefault).map((p) => p.id)).toEqual([id]);
    expect((await t.call("PUT", `/api/llm-profiles/${id}`, { isDefault: false })).status).toBe(400);
    const other = await t.call("POST", "/api/llm-profiles", { name: "Temp", baseUrl: llm.baseUrl, model: "m", isDefault: true });
    expect((await t.call("DELETE", `/api/llm-profiles/${LlmProfileAnswerSchema.parse(other.body).profile.id}`)).status).toBe(200);
    const after = LlmProfileListSchema.parse((await t.call("GET", "/api/llm-profiles")).body).profiles;
    expect(after.filter((p) => p.isDefault)).toHaveLength(1);
  });

  it("refuses bad profile requests precisely and changes nothing", async () => {
    const before = JSON.stringify((await t.call("GET", "/api/llm-profiles")).body);
    const cases: [string, string, unknown, number, string][] = [
      ["POST", "/api/llm-profiles", { name: "X", baseUrl: "ftp://host", model: "m" }, 400, "VALIDATION_FAILED"],
      ["POST", "/api/llm-profiles", { name: "X", baseUrl: "http://h/v1" }, 400, "VALIDATION_FAILED"],
      ["POST", "/api/llm-profiles", { name: "X", baseUrl: "http://h/v1", model: "m", apiKey: "has space" }, 400, "VALIDATION_FAILED"],
      ["POST", "/api/llm-profiles", { name: "X", baseUrl: "http://h/v1", model: "m", apikey: "typo" }, 400, "VALIDATION_FAILED"],
      ["POST", "/api/llm-profiles", { id, name: "X", baseUrl: "http://h/v1", model: "m" }, 409, "ALREADY_EXISTS"],
      ["PUT", `/api/llm-profiles/${id}`, { timeoutMs: -1 }, 400, "VALIDATION_FAILED"],
      ["PUT", "/api/llm-profiles/demo", { baseUrl: "http://elsewhere/v1" }, 400, "VALIDATION_FAILED"],
      ["DELETE", "/api/llm-profiles/demo", undefined, 409, "CONFLICT"],
      ["GET", "/api/llm-profiles/nope", undefined, 404, "NOT_FOUND"],
      ["POST", "/api/llm-profiles/nope/test", undefined, 404, "NOT_FOUND"],
    ];
    for (const [method, path, body, status, code] of cases) {
      const res = await t.call(method, path, body);
      expect({ method, path, status: res.status, code: ErrorBodySchema.safeParse(res.body).data?.error.code }).toEqual({ method, path, status, code });
    }
    const keyError = await t.call("POST", "/api/llm-profiles", { name: "X", baseUrl: "http://h/v1", model: "m", apiKey: `${KEY} trailing` });
    expect(JSON.stringify(keyError.body)).not.toContain(KEY);
    expect(JSON.stringify((await t.call("GET", "/api/llm-profiles")).body)).toBe(before);
  });

  it("never writes the key to the log", () => {
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join("\n")).not.toContain(KEY);
  });
});

describe("master key", () => {
  it("is generated once with mode 0600, and keys still decrypt after a restart", async () => {
    const mode = statSync(join(t.dataDir, "master.key")).mode & 0o777;
    expect(mode).toBe(0o600);
    const dataDir = tempDir();
    const first = await startTestServer({ dataDir, demoLlm: false });
    const created = await first.call("POST", "/api/llm-profiles", { name: "Restarted", baseUrl: llm.baseUrl, model: "gpt-test", apiKey: KEY });
    await first.stop();
    const second = await startTestServer({ dataDir, demoLlm: false });
    try {
      llm.enqueue({ kind: "text", chunks: ["pong"] });
      expect(LlmProfileTestSchema.parse((await second.call("POST", `/api/llm-profiles/${LlmProfileAnswerSchema.parse(created.body).profile.id}/test`)).body).ok).toBe(true);
      expect(llm.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
    } finally {
      await second.stop();
    }
  });

  it("comes from WEFT_SECRET when set; another secret cannot read the key and says what to do", async () => {
    const dataDir = tempDir();
    const first = await startTestServer({ dataDir, demoLlm: false, secret: "correct horse battery staple 42" });
    expect(existsSync(join(dataDir, "master.key"))).toBe(false);
    const created = await first.call("POST", "/api/llm-profiles", { name: "Secret", baseUrl: llm.baseUrl, model: "gpt-test", apiKey: KEY });
    await first.stop();
    const second = await startTestServer({ dataDir, demoLlm: false, secret: "a different secret entirely" });
    try {
      const listed = LlmProfileListSchema.parse((await second.call("GET", "/api/llm-profiles")).body).profiles.find((p) => p.id === LlmProfileAnswerSchema.parse(created.body).profile.id);
      expect(listed?.apiKeyMasked).toBe("sk-…9f2c");
      const test = LlmProfileTestSchema.parse((await second.call("POST", `/api/llm-profiles/${LlmProfileAnswerSchema.parse(created.body).profile.id}/test`)).body);
      expect(test).toMatchObject({ ok: false, error: { code: "AUTH" } });
      expect(test.error?.message).toContain("master key");
    } finally {
      await second.stop();
    }
  });
});
