import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BuilderSessionStateSchema, ChangePreviewSchema } from "@weft/types";
import { ErrorBodySchema } from "../../testing/error-body.ts";
import { createTestUser, type TestUser } from "../../testing/users.ts";
import { notesWorkflow, startBuilderFixture, textTurn, toolTurn, type BuilderFixture } from "../testing/builder-fixture.ts";

let f: BuilderFixture;
let editor: TestUser;

beforeAll(async () => {
  f = await startBuilderFixture();
  expect((await f.call("POST", "/api/workflows", { workflow: notesWorkflow() })).status).toBe(201);
  // The owner grants shell.exec to the agent "ops" alone.
  expect((await f.call("PUT", "/api/settings/permissions", { defaultAction: "deny", rules: [{ action: "allow", tool: "shell.exec", agent: "ops" }] })).status).toBe(200);
  editor = await createTestUser(f.t, "ed", "editor");
});
afterAll(async () => {
  await f.stop();
});

/** Issue 31, attack 1 through the Builder: its apply writes agents too, so an editor cannot use it to take an id an owner's rule names. */
describe("the Builder's apply and agent ids", () => {
  it("refuses an editor applying a change that creates the agent an owner rule grants to; nothing is stored", async () => {
    const state = BuilderSessionStateSchema.parse((await editor.call("POST", "/api/builder/sessions", { target: { type: "workflow", workflowId: "notes" }, llmProfileId: f.profileId })).body);
    const sessionId = state.session.id;
    expect((await editor.call("PUT", `/api/builder/sessions/${sessionId}/scope`, { extra: [{ type: "agent", id: "ops" }] })).status).toBe(200);
    const agent = { id: "ops", name: "Ops", deliberationWorkflowId: "notes", tools: ["shell:exec"] };
    f.llm.enqueue(toolTurn(["builder_change_stage", { summary: "An ops agent", operations: [{ op: "agent.put", agent }] }]), textTurn("Staged."));
    expect((await editor.call("POST", `/api/builder/sessions/${sessionId}/messages`, { content: "Add an ops agent" })).status).toBe(200);
    const preview = ChangePreviewSchema.parse((await editor.call("GET", `/api/builder/sessions/${sessionId}/change-sets/latest/preview`)).body);
    const applied = await editor.call("POST", `/api/builder/sessions/${sessionId}/apply`, {
      changeSetId: preview.changeSetId,
      confirmSource: "ui_manual_apply",
      revisionBase: preview.revisionBase,
      confirmStale: true,
    });
    expect(applied.status).toBe(403);
    expect(ErrorBodySchema.parse(applied.body).error).toMatchObject({ code: "FORBIDDEN", details: { reason: "AGENT_ID_RESERVED", agentId: "ops" } });
    expect((await editor.call("GET", "/api/agents/ops")).status).toBe(404);
  });
});
