import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import { z } from "zod";
import { silentLogger } from "@weft/types";
import { openSqliteStorage } from "../testing/storage.ts";
import { startTestServer, tempDir, waitFor, type TestServer } from "../testing/test-server.ts";
import { ConversationAnswerSchema, ProfileIdAnswerSchema, SentMessageSchema } from "../testing/answers.ts";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { PermissionSettings } from "./permission-settings.ts";
import { MIGRATIONS } from "../schema.ts";

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));

/** An `<ACTION>` calling fs.write, as the model writes it. */
const write = (path: string, content: string) => ({
  kind: "text" as const,
  chunks: [`Writing.\n<ACTION>\n  <fs_write>\n    <path>${path}</path>\n    <content>${content}</content>\n  </fs_write>\n</ACTION>`],
});
const say = (text: string) => ({ kind: "text" as const, chunks: [text] });

/** Settings → Permissions over HTTP: stored in SQLite, applied to the agents' tool calls at once, kept across restarts. */
describe("the permission settings", () => {
  const dataDir = tempDir();
  const projectDir = tempDir("weft-project-");
  let t: TestServer;
  let llm: ScriptedLlmServer;

  const start = async () => (t = await startTestServer({ dataDir, projectDir, examplesDir: EXAMPLES }));
  const send = async (agent: string, message: string): Promise<string> => {
    const sent = await t.call("POST", `/api/agents/${agent}/messages`, { message });
    expect(sent.status).toBe(202);
    return SentMessageSchema.parse(sent.body).conversationId;
  };
  const settled = (conversationId: string) =>
    waitFor(
      async () => {
        const answer = ConversationAnswerSchema.parse((await t.call("GET", `/api/conversations/${conversationId}`)).body);
        return answer.agent && !answer.agent.running && answer.steps.length > 0 ? answer : undefined;
      },
      20_000,
      `conversation ${conversationId} to settle`,
    );
  const question = (conversationId: string) =>
    waitFor(
      async () => {
        const answer = ConversationAnswerSchema.parse((await t.call("GET", `/api/conversations/${conversationId}`)).body);
        return answer.agent?.pendingPermissions?.[0];
      },
      20_000,
      "a permission question",
    );

  beforeAll(async () => {
    llm = await startScriptedLlmServer();
    await start();
    const profile = await t.call("POST", "/api/llm-profiles", { name: "scripted", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0 });
    expect(profile.status).toBe(201);
    const agent = { deliberationWorkflowId: "agent-deliberation", llmProfileId: ProfileIdAnswerSchema.parse(profile.body).profile.id, tools: ["fs:write", "fs:read"] };
    expect((await t.call("POST", "/api/agents", { id: "writer", name: "Writer", ...agent })).status).toBe(201);
    expect((await t.call("POST", "/api/agents", { id: "trusted", name: "Trusted", ...agent, permissions: [{ action: "allow", tool: "fs.write" }] })).status).toBe(201);
  });
  afterAll(async () => {
    await t?.stop();
    await llm?.stop();
  });

  it("starts with today's behaviour: every call allowed, nothing saved yet", async () => {
    expect(await t.call("GET", "/api/settings/permissions")).toMatchObject({ status: 200, body: { policy: { defaultAction: "allow", rules: [] }, updatedAt: null } });
  });

  it("asks the user before an agent's call an `ask` rule covers, and writes only once allowed", async () => {
    const put = await t.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules: [{ action: "ask", tool: "fs.write" }] });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ policy: { defaultAction: "allow", rules: [{ action: "ask", tool: "fs.write" }] }, updatedAt: expect.any(Number) });

    llm.enqueue(write("@project/asked.txt", "approved"), say("Written."));
    const conversationId = await send("writer", "Write approved to asked.txt");
    const asked = await question(conversationId);
    expect(asked).toMatchObject({ tool: "fs.write", target: "@project/asked.txt", agentId: "writer" });
    expect(existsSync(join(projectDir, "asked.txt"))).toBe(false);
    expect((await t.call("POST", `/api/conversations/${conversationId}/permissions/${asked.requestId}`, { answer: "once" })).status).toBe(200);
    const done = await settled(conversationId);
    expect(done.steps[0]?.actions[0]).toMatchObject({ ok: true, permissions: [{ tool: "fs.write", answer: "once" }] });
    expect(readFileSync(join(projectDir, "asked.txt"), "utf8")).toBe("approved");
  });

  it("does not let an agent's own allow skip the settings' ask (the owner's rules are the ceiling)", async () => {
    llm.enqueue(write("@project/trusted.txt", "mine"), say("Written."));
    const conversationId = await send("trusted", "Write mine to trusted.txt");
    const asked = await question(conversationId);
    expect(asked).toMatchObject({ tool: "fs.write", target: "@project/trusted.txt", agentId: "trusted" });
    expect(existsSync(join(projectDir, "trusted.txt"))).toBe(false);
    expect((await t.call("POST", `/api/conversations/${conversationId}/permissions/${asked.requestId}`, { answer: "once" })).status).toBe(200);
    const done = await settled(conversationId);
    expect(done.steps[0]?.actions[0]).toMatchObject({ ok: true, permissions: [{ tool: "fs.write", answer: "once" }] });
    expect(readFileSync(join(projectDir, "trusted.txt"), "utf8")).toBe("mine");
  });

  it("denies a call a `deny` rule covers, and hides a tool denied outright from the agent", async () => {
    const put = await t.call("PUT", "/api/settings/permissions", {
      rules: [
        { action: "deny", tool: "fs.write", target: "@project/locked/**" },
        { action: "deny", tool: "fs.read", agent: "writer" },
      ],
    });
    expect(put.status).toBe(200);
    llm.enqueue(write("@project/locked/secret.txt", "x"), say("It was denied."));
    const done = await settled(await send("writer", "Write into locked"));
    const refused = done.steps[0]?.actions[0];
    expect(refused).toMatchObject({ ok: false, error: { code: "E_PERMISSION_DENIED" } });
    expect(refused?.observation).toContain("denied by the permission settings (rule 1)");
    expect(existsSync(join(projectDir, "locked", "secret.txt"))).toBe(false);
    // The system prompt of that conversation offered fs_write but not fs_read.
    const system = String((llm.chatBodies().at(-2)!.messages as { content: string }[])[0]!.content);
    expect(system).toContain("fs_write");
    expect(system).not.toContain("fs_read");
  });

  it("refuses an invalid policy, naming the rule and the field, and changes nothing stored", async () => {
    const raw = (await t.call("GET", "/api/settings/permissions")).body;
    // Kept whole (loose) for the equality below; the policy and its time are read from it.
    const before = z.looseObject({ policy: z.unknown(), updatedAt: z.unknown() }).parse(raw);
    const cases: [unknown, RegExp][] = [
      [
        {
          rules: [
            { action: "allow", tool: "fs.read" },
            { action: "maybe", tool: "fs.write" },
          ],
        },
        /^body\.rules\.1\.action: /,
      ],
      [{ rules: [{ action: "deny", tool: "fs.wirte" }] }, /^body\.rules\.0\.tool: "fs\.wirte" matches none of the tools \(did you mean "fs\.write"\?\)/],
      [{ rules: [{ action: "deny", tool: "fs.write", target: "" }] }, /^body\.rules\.0\.target: a path or command wildcard/],
      [{ rules: [{ action: "deny", tol: "fs.write" }] }, /^body\.rules\.0: .*"tol"/],
      [{ defaultAction: "sometimes" }, /^body\.defaultAction: /],
      [{ rules: "deny everything" }, /^body\.rules: /],
    ];
    for (const [body, message] of cases) {
      const res = await t.call("PUT", "/api/settings/permissions", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(ErrorBodySchema.parse(res.body).error.code).toBe("VALIDATION_FAILED");
      expect(ErrorBodySchema.parse(res.body).error.message).toMatch(message);
    }
    expect((await t.call("GET", "/api/settings/permissions")).body).toEqual(raw);
    expect(await t.server.storage.settings.get("permissions")).toEqual({ value: before.policy, updatedAt: before.updatedAt });
    // An agent profile's rules are checked the same way.
    const agent = await t.call("POST", "/api/agents", { id: "typo", name: "Typo", deliberationWorkflowId: "agent-deliberation", tools: [], permissions: [{ action: "deny", tool: "shel.exec" }] });
    expect(agent.status).toBe(400);
    expect(ErrorBodySchema.parse(agent.body).error.message).toMatch(/^body\.permissions\.0\.tool: "shel\.exec" matches none of the tools \(did you mean "shell\.exec"\?\)/);
  });

  it("keeps the policy across a restart and applies it from the start", async () => {
    const put = await t.call("PUT", "/api/settings/permissions", { defaultAction: "ask", rules: [{ action: "allow", tool: "fs.read" }] });
    expect(put.status).toBe(200);
    await t.stop();
    await start();
    expect((await t.call("GET", "/api/settings/permissions")).body).toEqual(put.body);

    llm.enqueue(write("@project/after-restart.txt", "no"), say("The user refused."));
    const conversationId = await send("writer", "Write after the restart");
    const asked = await question(conversationId);
    expect((await t.call("POST", `/api/conversations/${conversationId}/permissions/${asked.requestId}`, { answer: "reject", feedback: "Not now." })).status).toBe(200);
    const done = await settled(conversationId);
    expect(done.steps[0]?.actions[0]?.observation).toContain("The user rejected fs.write on @project/after-restart.txt. Their feedback: Not now.");
    expect(existsSync(join(projectDir, "after-restart.txt"))).toBe(false);
  });
});

describe("a stored policy that no longer parses", () => {
  it("denies every call until the user saves a new one, rather than guessing", async () => {
    const storage = await openSqliteStorage(tempDir(), undefined, MIGRATIONS);
    try {
      await storage.settings.set("permissions", { defaultAction: "sometimes", rules: [] });
      const settings = await PermissionSettings.load(storage.settings, silentLogger);
      expect(settings.current.policy).toEqual({ defaultAction: "deny", rules: [] });
      const seen: unknown[] = [];
      settings.onChange((policy) => seen.push(policy));
      await settings.replace({ defaultAction: "allow", rules: [{ action: "ask", tool: "fs.write" }] });
      expect(seen).toEqual([{ defaultAction: "allow", rules: [{ action: "ask", tool: "fs.write" }] }]);
      expect((await PermissionSettings.load(storage.settings, silentLogger)).current.policy).toEqual(seen[0]);
    } finally {
      storage.close();
    }
  });
});
