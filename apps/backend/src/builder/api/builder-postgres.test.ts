import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BuilderApplyResponseSchema, BuilderSessionListSchema, BuilderSessionStateSchema, BuilderTurnResponseSchema } from "@weft/types";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import { WorkflowAnswerSchema } from "../../testing/answers.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../../testing/postgres-server.ts";
import { removeDir, startTestServer, tempDir, type TestServer } from "../../testing/test-server.ts";
import { AuditAnswerSchema, fillNode, notesWorkflow, textTurn, toolTurn } from "../testing/builder-fixture.ts";

let cluster: TestPostgres;
let llm: ScriptedLlmServer;
const dirs: string[] = [];
beforeAll(async () => {
  cluster = await startPostgres();
  llm = await startScriptedLlmServer({ model: "builder-test-model" });
});
afterAll(async () => {
  await llm?.stop();
  await cluster?.stop();
  dirs.splice(0).forEach(removeDir);
});

async function server(databaseUrl: string, dataDir: string, projectDir: string): Promise<TestServer> {
  return await startTestServer({ dataDir, projectDir, databaseUrl });
}

describe("the Builder on PostgreSQL (WEFT_DATABASE_URL)", () => {
  it("stages, validates and applies a change with everything stored in PostgreSQL, and finds it again after a restart", async () => {
    const databaseUrl = await createTestDatabase(cluster.url);
    const dataDir = tempDir("weft-builder-pg-");
    const projectDir = tempDir("weft-builder-pg-project-");
    dirs.push(dataDir, projectDir);
    let t: TestServer | undefined = await server(databaseUrl, dataDir, projectDir);
    try {
      expect((await t.call("POST", "/api/llm-profiles", { id: "scripted", name: "Scripted", baseUrl: llm.baseUrl, model: "builder-test-model", apiKey: "sk-pg-test-key", maxRetries: 0 })).status).toBe(
        201,
      );
      expect((await t.call("POST", "/api/workflows", { workflow: notesWorkflow() })).status).toBe(201);
      const created = BuilderSessionStateSchema.parse(
        (await t.call("POST", "/api/builder/sessions", { target: { type: "workflow", workflowId: "notes" }, mode: "optimize", llmProfileId: "scripted" })).body,
      );
      const sessionId = created.session.id;

      llm.enqueue(
        toolTurn(["builder_change_stage", { summary: "Friendlier notes", operations: [{ op: "node.put", workflowId: "notes", node: fillNode("Friendly notes about {{0}}") }] }]),
        toolTurn(["builder_change_validate", {}]),
        textTurn("Ready to review."),
      );
      const sent = BuilderTurnResponseSchema.parse((await t.call("POST", `/api/builder/sessions/${sessionId}/messages`, { content: "Make it friendlier." })).body);
      expect(sent.latestChangeSet).toMatchObject({ status: "validated", version: 1 });
      const changeSetId = sent.latestChangeSet!.id;

      const applied = BuilderApplyResponseSchema.parse((await t.call("POST", `/api/builder/sessions/${sessionId}/apply`, { changeSetId, confirmSource: "ui_manual_apply" })).body);
      expect(applied).toMatchObject({ applied: true, newRevision: { workflows: { notes: 2 } } });
      const stored = WorkflowAnswerSchema.parse((await t.call("GET", "/api/workflows/notes")).body).workflow;
      expect(stored.revision).toBe(2);
      expect(stored.nodes.find((n) => n.id === "fill")?.config).toEqual({ template: "Friendly notes about {{0}}" });
      await t.stop();
      t = undefined;

      // Another server process on the same database sees the session, its applied change set and its audit trail.
      t = await server(databaseUrl, tempDir("weft-builder-pg-"), projectDir);
      const sessions = BuilderSessionListSchema.parse((await t.call("GET", "/api/builder/sessions?targetType=workflow&targetId=notes")).body).sessions;
      expect(sessions.map((s) => s.id)).toEqual([sessionId]);
      const state = BuilderSessionStateSchema.parse((await t.call("GET", `/api/builder/sessions/${sessionId}?messages=0`)).body);
      expect(state.latestChangeSet).toMatchObject({ id: changeSetId, status: "applied" });
      const audit = AuditAnswerSchema.parse((await t.call("GET", `/api/builder/sessions/${sessionId}/audit`)).body).events.map((e) => e.type);
      expect(audit).toEqual(expect.arrayContaining(["ai.session.created", "ai.validation.passed", "ai.apply.succeeded"]));
    } finally {
      await t?.stop();
    }
  });
});
