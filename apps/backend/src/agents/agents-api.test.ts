import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentProfileSchema, SceneSchema } from "@weft/types";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { startTestServer, templateWorkflow, type TestServer } from "../testing/test-server.ts";

/** The list answers read here, through the shared schemas. */
const AgentList = z.object({ agents: z.array(AgentProfileSchema) });
const SceneList = z.object({ scenes: z.array(SceneSchema) });
const AgentAnswer = z.object({ agent: AgentProfileSchema });
const SceneAnswer = z.object({ scene: SceneSchema });
const errorOf = (body: unknown) => ErrorBodySchema.parse(body).error;
/** The `details` of a VALIDATION_FAILED answer: one issue per refused field. */
const IssuesSchema = z.object({ issues: z.array(z.object({ path: z.array(z.union([z.string(), z.number()])), message: z.string() })) });

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ demoLlm: false });
  await t.call("POST", "/api/workflows", { workflow: templateWorkflow("deliberate") });
  await t.call("POST", "/api/workflows", { workflow: templateWorkflow("a-skill") });
});
afterAll(() => t.stop());

const agent = (id: string, extra: Record<string, unknown> = {}) => ({ id, name: `Agent ${id}`, deliberationWorkflowId: "deliberate", ...extra });

describe("agent profiles API", () => {
  it("creates (plain or wrapped), reads, lists, updates with revisions and deletes", async () => {
    const plain = await t.call("POST", "/api/agents", agent("ada", { tools: ["core:text-template"], skills: ["a-skill"], protocol: "openai-tools" }));
    expect(plain.status).toBe(201);
    expect(AgentAnswer.parse(plain.body).agent).toMatchObject({ id: "ada", revision: 1, maxSteps: 8, protocol: "openai-tools" });
    const wrapped = await t.call("POST", "/api/agents", { agent: agent("bob") });
    expect(wrapped.status).toBe(201);

    expect(AgentList.parse((await t.call("GET", "/api/agents")).body).agents.map((a) => a.id)).toEqual(["ada", "bob"]);
    const got = AgentAnswer.parse((await t.call("GET", "/api/agents/ada")).body).agent;
    const updated = await t.call("PUT", "/api/agents/ada", { agent: { ...got, persona: "Careful." }, baseRevision: 1 });
    expect(AgentAnswer.parse(updated.body).agent).toMatchObject({ persona: "Careful.", revision: 2 });

    const stale = await t.call("PUT", "/api/agents/ada", { agent: { ...got, persona: "Reckless." }, baseRevision: 1 });
    expect(stale.status).toBe(409);
    expect(errorOf(stale.body)).toMatchObject({ code: "REVISION_CONFLICT", details: { currentRevision: 2 } });
    expect(AgentAnswer.parse((await t.call("GET", "/api/agents/ada")).body).agent.persona).toBe("Careful.");

    expect((await t.call("DELETE", "/api/agents/bob")).body).toEqual({ ok: true });
    expect((await t.call("GET", "/api/agents/bob")).status).toBe(404);
  });

  it("refuses profiles whose references do not exist, naming each, and stores nothing", async () => {
    const res = await t.call("POST", "/api/agents", agent("ghost", { deliberationWorkflowId: "missing", skills: ["nope"], tools: ["core:text-templat"], llmProfileId: "none" }));
    expect(res.status).toBe(400);
    const { issues } = IssuesSchema.parse(ErrorBodySchema.parse(res.body).error.details);
    const paths = issues.map((i) => i.path.join("."));
    expect(paths).toEqual(["deliberationWorkflowId", "skills.0", "tools.0", "llmProfileId"]);
    expect(issues[2]?.message).toContain('"core:text-template"');
    expect((await t.call("GET", "/api/agents/ghost")).status).toBe(404);
  });

  it("refuses bad shapes and taken ids", async () => {
    expect((await t.call("POST", "/api/agents", { id: "x", name: "X" })).status).toBe(400);
    expect((await t.call("POST", "/api/agents", agent("x", { maxSteps: 0 }))).status).toBe(400);
    await t.call("POST", "/api/agents", agent("dup"));
    const again = await t.call("POST", "/api/agents", agent("dup"));
    expect(again.status).toBe(409);
    expect(errorOf(again.body).code).toBe("ALREADY_EXISTS");
    expect((await t.call("PUT", "/api/agents/dup", { agent: agent("other"), baseRevision: 1 })).status).toBe(400);
    expect((await t.call("PUT", "/api/agents/nope", { agent: agent("nope"), baseRevision: 1 })).status).toBe(404);
  });
});

describe("scenes API", () => {
  it("stores scenes whose agents exist and refuses the others", async () => {
    await t.call("POST", "/api/agents", agent("cy"));
    const ok = await t.call("POST", "/api/scenes", { id: "s1", name: "S1", agents: [{ instanceId: "c1", profileId: "cy" }] });
    expect(ok.status).toBe(201);
    const created = SceneAnswer.parse(ok.body).scene;
    expect(created).toMatchObject({ id: "s1", revision: 1 });
    const bad = await t.call("POST", "/api/scenes", { id: "s2", name: "S2", agents: [{ instanceId: "c1", profileId: "who" }] });
    expect(bad.status).toBe(400);
    expect(errorOf(bad.body).message).toContain('"who"');
    const stale = await t.call("PUT", "/api/scenes/s1", { scene: { ...created, name: "Old" }, baseRevision: 0 });
    expect(stale.status).toBe(409);
    expect(SceneList.parse((await t.call("GET", "/api/scenes")).body).scenes.map((s) => s.name)).toEqual(["S1"]);
  });
});
