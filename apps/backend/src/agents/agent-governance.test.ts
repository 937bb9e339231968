import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import { z } from "zod";
import { AgentChangeSchema, EffectivePermissionsSchema } from "@weft/types";
import { startTestServer, tempDir, waitFor, type TestServer } from "../testing/test-server.ts";
import { ConversationAnswerSchema, ProfileIdAnswerSchema, SentMessageSchema } from "../testing/answers.ts";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { createTestUser, type TestUser } from "../testing/users.ts";

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
const PLAN = "ops-only-plan-0e4b7c2d91";

const toolCall = (name: string, args: Record<string, unknown>) => ({ kind: "tool_calls" as const, calls: [{ name, arguments: JSON.stringify(args) }] });
const say = (text: string) => ({ kind: "text" as const, chunks: [text] });
const ChangesSchema = z.object({ changes: z.array(AgentChangeSchema) });

/**
 * Issue 31, attack 1 (the id claim): an owner rule scoped to `agent: ops` grants what the owner
 * meant for that agent only — an editor cannot take the id to inherit it. Changes to an agent are
 * recorded with who made them, and its effective permissions say where each comes from.
 */
describe("agent ids and the owner's agent-scoped rules", () => {
  const projectDir = tempDir("weft-project-");
  let t: TestServer;
  let llm: ScriptedLlmServer;
  let editor: TestUser;
  let agent: Record<string, unknown>;

  /** Everything the server answers about conversations, runs and the agent, as the editor sees it. */
  const everything = async (): Promise<string> => {
    const runs = z.object({ runs: z.array(z.object({ id: z.string() })) }).parse((await editor.call("GET", "/api/runs?limit=500")).body);
    const details = await Promise.all(runs.runs.map(async (r) => JSON.stringify((await editor.call("GET", `/api/runs/${r.id}`)).body)));
    return JSON.stringify(llm.chatBodies()) + details.join("\n");
  };

  beforeAll(async () => {
    mkdirSync(join(projectDir, "private"), { recursive: true });
    writeFileSync(join(projectDir, "private", "plan.txt"), PLAN);
    llm = await startScriptedLlmServer();
    t = await startTestServer({ projectDir, examplesDir: EXAMPLES });
    const profile = await t.call("POST", "/api/llm-profiles", { name: "scripted", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0 });
    agent = { deliberationWorkflowId: "agent-deliberation", llmProfileId: ProfileIdAnswerSchema.parse(profile.body).profile.id, protocol: "openai-tools", maxSteps: 3, tools: ["fs:read"] };
    // The owner keeps @project/private/ to the agent "ops" alone.
    const rules = [
      { action: "deny", tool: "fs.*", target: "@project/private/**" },
      { action: "allow", tool: "fs.read", target: "@project/private/**", agent: "ops" },
    ];
    expect((await t.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules })).status).toBe(200);
    editor = await createTestUser(t, "ed", "editor");
  });

  afterAll(async () => {
    await t?.stop();
    await llm?.stop();
  });

  it("refuses an editor creating the agent an owner rule grants to, so the grant's file never reaches the editor", async () => {
    const created = await editor.call("POST", "/api/agents", { id: "ops", name: "Not ops", ...agent });
    expect(created.status).toBe(403);
    expect(ErrorBodySchema.parse(created.body).error).toMatchObject({ code: "FORBIDDEN", details: { reason: "AGENT_ID_RESERVED", agentId: "ops", rules: [1] } });
    expect((await editor.call("GET", "/api/agents/ops")).status).toBe(404);
    // Had it been created, this would read the owner's file through the grant.
    llm.enqueue(toolCall("fs_read", { path: "@project/private/plan.txt" }), say("Done."));
    expect((await editor.call("POST", "/api/agents/ops/messages", { message: "Read the plan" })).status).toBe(404);
    expect(await everything()).not.toContain(PLAN);
  });

  it("lets the owner create it; an editor who deletes it cannot create it again, and every change names who made it", async () => {
    expect((await t.call("POST", "/api/agents", { id: "ops", name: "Ops", ...agent })).status).toBe(201);
    // An editor may change it: recorded with their name.
    const updated = await editor.call("PUT", "/api/agents/ops", { agent: { id: "ops", name: "Ops", ...agent, tools: ["fs:read", "fs:list"] }, baseRevision: 1 });
    expect(updated.status).toBe(200);
    expect((await editor.call("DELETE", "/api/agents/ops")).status).toBe(200);
    expect((await editor.call("POST", "/api/agents", { id: "ops", name: "Mine now", ...agent })).status).toBe(403);
    expect((await editor.call("GET", "/api/agents/ops")).status).toBe(404);
    expect(await everything()).not.toContain(PLAN);

    const changes = ChangesSchema.parse((await editor.call("GET", "/api/agents/ops/changes")).body).changes;
    expect(changes.map((c) => [c.kind, c.byName, c.role])).toEqual([
      ["deleted", "ed", "editor"],
      ["updated", "ed", "editor"],
      ["created", "owner", "owner"],
    ]);
    expect(changes[1]).toMatchObject({ revision: 2, fields: ["tools"], tools: ["fs:read", "fs:list"], by: editor.id });
    // Ids no owner rule grants to stay free for editors.
    expect((await editor.call("POST", "/api/agents", { id: "ops-helper", name: "Helper", ...agent })).status).toBe(201);
  });

  it("refuses an editor's scene agent instance taking the id an owner rule grants to, on creation and when added later", async () => {
    const scene = (instanceIds: string[]) => ({ id: "board", name: "Board", agents: instanceIds.map((instanceId) => ({ instanceId, profileId: "ops-helper" })) });
    const created = await editor.call("POST", "/api/scenes", scene(["ops"]));
    expect(created.status).toBe(403);
    expect(ErrorBodySchema.parse(created.body).error).toMatchObject({ code: "FORBIDDEN", details: { reason: "AGENT_ID_RESERVED", agentId: "ops" } });
    expect((await editor.call("GET", "/api/scenes/board")).status).toBe(404);
    expect((await editor.call("POST", "/api/scenes", scene(["helper"]))).status).toBe(201);
    expect((await editor.call("PUT", "/api/scenes/board", { scene: scene(["helper", "ops"]), baseRevision: 1 })).status).toBe(403);
    const stored = z.object({ scene: z.object({ revision: z.number(), agents: z.array(z.object({ instanceId: z.string() })) }) }).parse((await editor.call("GET", "/api/scenes/board")).body);
    expect(stored.scene).toEqual({ revision: 1, agents: [expect.objectContaining({ instanceId: "helper" })] });
    // An instance an owner added stays editable by editors.
    expect((await t.call("PUT", "/api/scenes/board", { scene: scene(["helper", "ops"]), baseRevision: 1 })).status).toBe(200);
    expect((await editor.call("PUT", "/api/scenes/board", { scene: { ...scene(["helper", "ops"]), name: "Renamed" }, baseRevision: 2 })).status).toBe(200);
  });

  it("gives the owner's agent the grant, and shows each agent's effective permissions with where they come from", async () => {
    expect((await t.call("POST", "/api/agents", { id: "ops", name: "Ops", ...agent, permissions: [{ action: "allow", tool: "*" }] })).status).toBe(201);
    llm.enqueue(toolCall("fs_read", { path: "@project/private/plan.txt" }), say("Done."));
    const sent = await t.call("POST", "/api/agents/ops/messages", { message: "Read the plan" });
    const conversationId = SentMessageSchema.parse(sent.body).conversationId;
    const settled = await waitFor(
      async () => {
        const answer = ConversationAnswerSchema.parse((await t.call("GET", `/api/conversations/${conversationId}`)).body);
        return answer.agent && !answer.agent.running && answer.steps.length > 0 ? answer : undefined;
      },
      30_000,
      "the owner's agent to answer",
    );
    expect(JSON.stringify(settled.steps)).toContain(PLAN);

    const ops = EffectivePermissionsSchema.parse((await editor.call("GET", "/api/agents/ops/permissions")).body);
    expect(ops.entries).toContainEqual({ tool: "fs.read", target: "@project/private/**", action: "allow", from: "owner-rule", index: 1, owner: "allow", agent: "allow" });
    expect(ops.entries).toContainEqual({ tool: "fs.write", target: "@project/private/**", action: "deny", from: "owner-rule", index: 0, owner: "deny", agent: "allow" });
    const helper = EffectivePermissionsSchema.parse((await editor.call("GET", "/api/agents/ops-helper/permissions")).body);
    expect(helper.entries).toContainEqual({ tool: "fs.read", target: "@project/private/**", action: "deny", from: "owner-rule", index: 0, owner: "deny" });
    expect(helper.entries).toContainEqual({ tool: "shell.exec", action: "allow", from: "owner-default", owner: "allow" });
    // A viewer does not read the owner's rules through an agent.
    const viewer = await createTestUser(t, "vi", "viewer");
    expect((await viewer.call("GET", "/api/agents/ops/permissions")).status).toBe(403);
  });
});
