import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { DocumentVersionSchema, VersionDiffSchema, VersionPageSchema, WorkflowSchema, type Workflow } from "@weft/types";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { RunAnswerSchema, startTestServer, templateWorkflow, waitForRun, type TestServer } from "../testing/test-server.ts";
import { createTestUser, type TestUser } from "../testing/users.ts";

const WorkflowAnswer = z.object({ workflow: WorkflowSchema });
const VersionAnswer = z.object({ version: DocumentVersionSchema, content: z.record(z.string(), z.unknown()) });
const AgentAnswer = z.object({ agent: z.object({ revision: z.number() }).loose() });
const Started = z.object({ runId: z.string() });
const errorOf = (body: unknown) => ErrorBodySchema.parse(body).error;

let t: TestServer;
let editor: TestUser;
let viewer: TestUser;
beforeAll(async () => {
  t = await startTestServer();
  editor = await createTestUser(t, "edna", "editor");
  viewer = await createTestUser(t, "vic", "viewer");
});
afterAll(() => t.stop());

/** Saves `workflow` with `template` in its `fill` node over the stored revision; answers the stored workflow. */
async function saveTemplate(as: TestUser, workflow: Workflow, template: string, message?: string): Promise<Workflow> {
  const changed = { ...workflow, nodes: workflow.nodes.map((n) => (n.id === "fill" ? { ...n, config: { ...n.config, template } } : n)) };
  const res = await as.call("PUT", `/api/workflows/${workflow.id}`, { workflow: changed, baseRevision: workflow.revision, ...(message ? { message } : {}) });
  expect(res.status).toBe(200);
  return WorkflowAnswer.parse(res.body).workflow;
}

const versions = async (id: string, query = "") => VersionPageSchema.parse((await t.call("GET", `/api/workflows/${id}/versions${query}`)).body);

describe("workflow versions", () => {
  it("keeps a version per save (who, when, message), none for an identical save, and restores version 3 as version 6", async () => {
    const created = await editor.call("POST", "/api/workflows", { workflow: templateWorkflow("hist", "v1 {{0}}") });
    expect(created.status).toBe(201);
    let wf = WorkflowAnswer.parse(created.body).workflow;
    for (const n of [2, 3, 4, 5]) wf = await saveTemplate(editor, wf, `v${n} {{0}}`, `step ${n}`);

    // An identical save moves the revision but makes no version.
    const same = await editor.call("PUT", "/api/workflows/hist", { workflow: wf, baseRevision: wf.revision });
    expect(same.status).toBe(200);
    wf = WorkflowAnswer.parse(same.body).workflow;
    const page = await versions("hist");
    expect(page.latest).toBe(5);
    expect(page.versions.map((v) => v.number)).toEqual([5, 4, 3, 2, 1]);
    expect(page.versions[0]).toMatchObject({ savedBy: { id: editor.id, name: "edna" }, message: "step 5" });

    const v3 = VersionAnswer.parse((await t.call("GET", "/api/workflows/hist/versions/3")).body);
    expect(v3.content).not.toHaveProperty("revision");

    const restored = await editor.call("POST", "/api/workflows/hist/versions/3/restore", { baseRevision: wf.revision });
    expect(restored.status).toBe(200);
    const after = await versions("hist");
    expect(after.latest).toBe(6);
    expect(after.versions[0]).toMatchObject({ number: 6, message: "Restored version 3", savedBy: { name: "edna" }, hash: v3.version.hash });
    const v6 = VersionAnswer.parse((await t.call("GET", "/api/workflows/hist/versions/6")).body);
    expect(v6.content).toEqual(v3.content);
    const stored = WorkflowAnswer.parse((await t.call("GET", "/api/workflows/hist")).body).workflow;
    expect(stored.nodes.find((n) => n.id === "fill")?.config).toMatchObject({ template: "v3 {{0}}" });

    // A restore checks the revision as a save does: nothing is stored over a newer save.
    const stale = await editor.call("POST", "/api/workflows/hist/versions/1/restore", { baseRevision: wf.revision });
    expect(stale.status).toBe(409);
    expect(errorOf(stale.body).code).toBe("REVISION_CONFLICT");
    expect((await versions("hist")).latest).toBe(6);
  });

  it("pages the list newest first", async () => {
    const first = await versions("hist", "?limit=2");
    expect(first.versions.map((v) => v.number)).toEqual([6, 5]);
    expect(first.nextBefore).toBe(5);
    const second = await versions("hist", `?limit=2&before=${first.nextBefore}`);
    expect(second.versions.map((v) => v.number)).toEqual([4, 3]);
    expect(second.latest).toBe(6);
  });

  it("diffs two versions node by node and field by field", async () => {
    const res = await t.call("GET", "/api/workflows/hist/versions/1/diff/2");
    expect(res.status).toBe(200);
    const diff = VersionDiffSchema.parse(res.body);
    expect(diff.changes).toEqual([{ op: "replace", path: "nodes[id=fill].config.template", before: "v1 {{0}}", after: "v2 {{0}}" }]);
    expect(diff.graph?.nodes.changed.map((c) => [c.id, c.fields])).toEqual([["fill", ["config"]]]);
    expect(diff.graph?.nodes.added).toEqual([]);
    const missing = await t.call("GET", "/api/workflows/hist/versions/1/diff/99");
    expect(missing.status).toBe(404);
    expect(errorOf(missing.body).message).toContain("no version 99");
  });

  it("lets a viewer read versions but not restore one: no version is made", async () => {
    expect((await viewer.call("GET", "/api/workflows/hist/versions")).status).toBe(200);
    const wf = WorkflowAnswer.parse((await t.call("GET", "/api/workflows/hist")).body).workflow;
    const refused = await viewer.call("POST", "/api/workflows/hist/versions/2/restore", { baseRevision: wf.revision });
    expect(refused.status).toBe(403);
    expect((await versions("hist")).latest).toBe(6);
    const still = WorkflowAnswer.parse((await t.call("GET", "/api/workflows/hist")).body).workflow;
    expect(still.revision).toBe(wf.revision);
    expect(still.nodes.find((n) => n.id === "fill")?.config).toMatchObject({ template: "v3 {{0}}" });
  });

  it("records the version a run ran", async () => {
    const started = Started.parse((await t.call("POST", "/api/workflows/hist/runs", { inputs: { topic: "looms" } })).body);
    const run = await waitForRun(t, started.runId);
    expect(RunAnswerSchema.parse(run).run).toMatchObject({ workflowVersion: 6 });
    const listed = z.object({ runs: z.array(z.object({ id: z.string(), workflowVersion: z.number().optional() })) }).parse((await t.call("GET", "/api/runs?workflowId=hist")).body);
    expect(listed.runs.find((r) => r.id === started.runId)?.workflowVersion).toBe(6);
  });

  it("deletes a workflow's versions with it: the same id created again starts at version 1", async () => {
    expect((await editor.call("DELETE", "/api/workflows/hist")).status).toBe(200);
    expect((await t.call("GET", "/api/workflows/hist/versions")).status).toBe(404);
    expect((await editor.call("POST", "/api/workflows", { workflow: templateWorkflow("hist") })).status).toBe(201);
    expect((await versions("hist")).versions.map((v) => v.number)).toEqual([1]);
  });

  it("keeps versions of agent profiles and scenes too, restorable by editors", async () => {
    const agent = { id: "helper", name: "Helper", persona: "Old persona.", deliberationWorkflowId: "hist", tools: [], skills: [] };
    const created = await editor.call("POST", "/api/agents", agent);
    expect(created.status).toBe(201);
    const saved = await editor.call("PUT", "/api/agents/helper", { agent: { ...agent, persona: "Changed persona." }, baseRevision: 1, message: "new persona" });
    expect(saved.status).toBe(200);
    const page = VersionPageSchema.parse((await t.call("GET", `/api/agents/helper/versions`)).body);
    expect(page.versions.map((v) => v.number)).toEqual([2, 1]);
    expect(page.versions[0]).toMatchObject({ message: "new persona", savedBy: { name: "edna" } });
    const restored = await editor.call("POST", `/api/agents/helper/versions/1/restore`, { baseRevision: AgentAnswer.parse(saved.body).agent.revision });
    expect(restored.status).toBe(200);
    expect(AgentAnswer.parse(restored.body).agent).toMatchObject({ persona: "Old persona." });
    expect(VersionPageSchema.parse((await t.call("GET", `/api/agents/helper/versions`)).body).latest).toBe(3);

    const scene = await editor.call("POST", "/api/scenes", { id: "room", name: "Room", agents: [{ instanceId: "helper-1", profileId: "helper" }] });
    expect(scene.status).toBe(201);
    expect(VersionPageSchema.parse((await viewer.call("GET", "/api/scenes/room/versions")).body).latest).toBe(1);
    expect((await viewer.call("POST", "/api/scenes/room/versions/1/restore", { baseRevision: 1 })).status).toBe(403);
    expect(VersionPageSchema.parse((await viewer.call("GET", "/api/scenes/room/versions")).body).latest).toBe(1);
  });
});
