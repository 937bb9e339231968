import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  BuilderApplyResponseSchema,
  BuilderSessionDetailSchema,
  BuilderSessionListSchema,
  BuilderSessionStateSchema,
  BuilderTurnResponseSchema,
  ChangePreviewSchema,
  WorkflowSchema,
  type PaneMessage,
} from "@weft/types";
import { WorkflowAnswerSchema } from "../../testing/answers.ts";
import { ErrorBodySchema } from "../../testing/error-body.ts";
import { API_KEY, AppliedObjectsSchema, AuditAnswerSchema, builderRows, fillNode, notesWorkflow, startBuilderFixture, textTurn, toolTurn, type BuilderFixture } from "../testing/builder-fixture.ts";
import { PROMPT_LAYERS } from "../prompt/prompt-composer.ts";

let f: BuilderFixture;

beforeAll(async () => {
  f = await startBuilderFixture();
  expect((await f.call("POST", "/api/workflows", { workflow: notesWorkflow() })).status).toBe(201);
});
afterAll(async () => {
  await f.stop();
});

/** The answer parses with the schema the frontend checks it with; the test reads it as parsed. */
function wire<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  if (!parsed.success) throw parsed.error;
  return parsed.data;
}

/** The tool calls an assistant entry of the pane lists (other entries list none). */
const toolCallsOf = (message: PaneMessage | undefined) => (message?.kind === "assistant" ? message.toolCalls : []);

/** A session on `notes` with the scripted profile: its id. */
async function openSession(): Promise<string> {
  return BuilderSessionStateSchema.parse((await f.call("POST", "/api/builder/sessions", { target: { type: "workflow", workflowId: "notes" }, llmProfileId: f.profileId })).body).session.id;
}

/** One user message to a session: the answer with its turn. */
async function send(sessionId: string, content: string) {
  return BuilderTurnResponseSchema.parse((await f.call("POST", `/api/builder/sessions/${sessionId}/messages`, { content })).body);
}

describe("Builder AI: stage → validate → preview → apply", () => {
  let sessionId: string;
  let changeSetId: string;

  it("runs the model's native tool calls against the session's working copy, leaving the store untouched", async () => {
    const created = await f.call("POST", "/api/builder/sessions", { target: { type: "workflow", workflowId: "notes" }, mode: "optimize", llmProfileId: f.profileId });
    expect(created.status).toBe(201);
    const state = wire(BuilderSessionStateSchema, created.body);
    sessionId = state.session.id;
    expect(state.session).toMatchObject({ status: "active", target: { type: "workflow", workflowId: "notes" }, mode: "optimize", busy: false, latestChangeSetId: null });

    f.llm.enqueue(
      toolTurn(["builder_context_get", {}]),
      toolTurn(["builder_change_stage", { summary: "Friendlier notes title", operations: [{ op: "node.put", workflowId: "notes", node: fillNode("Friendly notes about {{0}}") }] }]),
      toolTurn(["builder_workflow_read", { workflowId: "notes" }], ["builder_change_validate", {}]),
      textTurn("I changed the template of the fill node; the change is valid and ready to review."),
    );
    const sent = await f.call("POST", `/api/builder/sessions/${sessionId}/messages`, { content: "Make the notes title friendlier." });
    expect(sent.status).toBe(200);
    const answer = wire(BuilderTurnResponseSchema, sent.body);
    expect(answer.turn).toMatchObject({ status: "completed", assistantSummary: "I changed the template of the fill node; the change is valid and ready to review.", repairRounds: 0 });
    expect(answer.turn.toolCalls.map((c) => [c.name, c.ok])).toEqual([
      ["builder.context.get", true],
      ["builder.change.stage", true],
      ["builder.workflow.read", true],
      ["builder.change.validate", true],
    ]);
    expect(answer.latestChangeSet).toMatchObject({ status: "validated", version: 1, summary: "Friendlier notes title", objects: [{ type: "workflow", key: "notes", deleted: false }] });
    changeSetId = answer.latestChangeSet!.id;

    // The read after the stage saw the working copy; the store still has the old template.
    const bodies = f.llm.chatBodies();
    const readResult = (bodies[3].messages as { role: string; content: string }[]).filter((m) => m.role === "tool").at(-2);
    expect(JSON.parse(readResult!.content)).toMatchObject({ ok: true, source: "working-copy", storedRevision: 1 });
    expect(readResult!.content).toContain("Friendly notes about {{0}}");
    const stored = WorkflowAnswerSchema.parse((await f.call("GET", "/api/workflows/notes")).body).workflow;
    expect(stored.revision).toBe(1);
    expect(stored.nodes.find((n) => n.id === "fill")?.config.template).toBe("Notes on {{0}}");
  });

  it("offers LLM-safe tool names without an apply tool, with the key sent only to the provider", () => {
    const body = f.llm.chatBodies()[0];
    const names = (body.tools as { function: { name: string } }[]).map((t) => t.function.name);
    expect(names).toContain("builder_change_stage");
    expect(names).toContain("builder_change_validate");
    expect(names).toContain("builder_change_discard");
    expect(names).toContain("builder_asset_read");
    expect(names).not.toContain("builder_change_apply");
    for (const name of names) expect(name).toMatch(/^[A-Za-z][A-Za-z0-9_]{0,63}$/);
    expect(f.llm.requests.at(-1)?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    const system = (body.messages as { role: string; content: string }[])[0];
    expect(system.role).toBe("system");
    const positions = ["## Core identity", "## Domain persona", "## Guardrails", "## Output contract", "## Entry strategy", "## Mode strategy", "## Context digest", "## Apply policy"].map((h) =>
      system.content.indexOf(h),
    );
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(PROMPT_LAYERS).toHaveLength(8);
  });

  it("previews the staged change as a structured diff of nodes, edges and JSON", async () => {
    const preview = await f.call("GET", `/api/builder/sessions/${sessionId}/change-sets/latest/preview`);
    expect(preview.status).toBe(200);
    const previewed = wire(ChangePreviewSchema, preview.body);
    expect(preview.body).toMatchObject({ changeSetId, version: 1, status: "validated", validation: { valid: true, errors: [] }, revisionBase: { workflows: { notes: 1 } } });
    const [object] = previewed.objects;
    expect(object).toMatchObject({ type: "workflow", key: "notes", action: "update", baseRevision: 1, storedRevision: 1, stale: false });
    expect(object.graph?.nodes.changed).toHaveLength(1);
    expect(object.graph?.nodes.changed[0]).toMatchObject({ id: "fill", fields: ["config"], positionOnly: false });
    expect(object.graph?.nodes.added).toEqual([]);
    expect(object.graph?.edges).toMatchObject({ added: [], removed: [], changed: [], unchanged: 2 });
    expect(object.changes).toEqual([{ op: "replace", path: "nodes[id=fill].config.template", before: "Notes on {{0}}", after: "Friendly notes about {{0}}" }]);
    expect(object.unifiedDiff).toMatch(/^-\s+"template": "Notes on \{\{0\}\}"$/m);
    expect(object.unifiedDiff).toMatch(/^\+\s+"template": "Friendly notes about \{\{0\}\}"$/m);
  });

  it("applies only on the user's call: revision bumped, audit event, working copy reset, session still active", async () => {
    const preview = ChangePreviewSchema.parse((await f.call("GET", `/api/builder/sessions/${sessionId}/change-sets/latest/preview`)).body);
    const refused = await f.call("POST", `/api/builder/sessions/${sessionId}/apply`, { changeSetId, confirmSource: "model" });
    expect(refused.status).toBe(400);
    expect(ErrorBodySchema.parse(refused.body).error.code).toBe("AI_CONFIRM_SOURCE_REQUIRED");

    const applied = await f.call("POST", `/api/builder/sessions/${sessionId}/apply`, { changeSetId, confirmSource: "ui_manual_apply", revisionBase: preview.revisionBase });
    expect(applied.status).toBe(200);
    const result = wire(BuilderApplyResponseSchema, applied.body);
    expect(applied.body).toMatchObject({ applied: true, sessionStatus: "active", changeSetId, newRevision: { workflows: { notes: 2 } }, warnings: [] });
    expect(result.session.status).toBe("active");
    expect(result.latestChangeSet).toMatchObject({ status: "applied", appliedRevisions: [{ type: "workflow", key: "notes", revision: 2 }] });

    const stored = WorkflowAnswerSchema.parse((await f.call("GET", "/api/workflows/notes")).body).workflow;
    expect(stored.revision).toBe(2);
    expect(stored.nodes.find((n) => n.id === "fill")?.config.template).toBe("Friendly notes about {{0}}");
    expect(builderRows(f.t.dataDir, "builder_working_copy", sessionId)).toEqual([]);

    const audit = AuditAnswerSchema.parse((await f.call("GET", `/api/builder/sessions/${sessionId}/audit`)).body);
    const succeeded = audit.events.find((e) => e.type === "ai.apply.succeeded");
    expect(succeeded?.data).toMatchObject({ changeSetId, confirmSource: "ui_manual_apply", objects: [{ type: "workflow", key: "notes", from: 1, to: 2 }] });
    const before = WorkflowSchema.parse(AppliedObjectsSchema.parse(succeeded?.data).objects[0].before);
    expect(before.nodes.find((n) => n.id === "fill")?.config.template).toBe("Notes on {{0}}");

    const again = await f.call("POST", `/api/builder/sessions/${sessionId}/apply`, { changeSetId, confirmSource: "ui_manual_apply" });
    expect(again.status).toBe(409);
    expect(ErrorBodySchema.parse(again.body).error.code).toBe("AI_CHANGESET_NOT_APPLICABLE");
  });

  it("goes on in the same session after apply, from the new stored revision", async () => {
    f.llm.enqueue(toolTurn(["builder_workflow_read", { workflowId: "notes" }]), textTurn("It now says Friendly notes."));
    const sent = await f.call("POST", `/api/builder/sessions/${sessionId}/messages`, { content: "What does the title say now?" });
    expect(BuilderTurnResponseSchema.parse(sent.body).turn.status).toBe("completed");
    const last = f.llm.chatBodies().at(-1)!.messages as { role: string; content: string }[];
    expect(JSON.parse(last.at(-1)!.content)).toMatchObject({ ok: true, source: "stored", storedRevision: 2 });
    const view = await f.call("GET", `/api/builder/sessions/${sessionId}`);
    const detail = wire(BuilderSessionDetailSchema, view.body);
    expect(detail.messages.map((m) => m.kind)).toEqual(["user", "assistant", "assistant", "assistant", "assistant", "user", "assistant", "assistant"]);
    expect(toolCallsOf(detail.messages[1])).toEqual([{ callId: expect.any(String), name: "builder.context.get", ok: true }]);
    // Summary-only: the pane carries no document the tools read or staged.
    expect(view.text).not.toContain("Friendly notes about {{0}}");
  });
});

describe("Builder AI sessions", () => {
  it("uses the LLM profile chosen for the Builder when a session names none", async () => {
    expect((await f.call("PUT", "/api/builder/settings", { llmProfileId: "nobody" })).status).toBe(404);
    expect((await f.call("PUT", "/api/builder/settings", { llmProfileId: f.profileId })).body).toEqual({ llmProfileId: f.profileId });
    expect((await f.call("GET", "/api/builder/settings")).body).toEqual({ llmProfileId: f.profileId });
    const before = f.llm.requests.length;
    f.llm.enqueue(textTurn("Hello from the chosen profile."));
    const created = await f.call("POST", "/api/builder/sessions", { target: { type: "workflow", workflowId: "notes" }, message: "Hi" });
    expect(BuilderTurnResponseSchema.parse(created.body).turn).toMatchObject({ status: "completed", assistantSummary: "Hello from the chosen profile." });
    expect(f.llm.requests.length).toBe(before + 1);
    expect((await f.call("PUT", "/api/builder/settings", { llmProfileId: null })).body).toEqual({ llmProfileId: null });
  });

  it("sends the latest six turns verbatim and a summary of the older ones", async () => {
    const id = await openSession();
    for (let i = 1; i <= 7; i++) {
      f.llm.enqueue(textTurn(`answer ${i}`));
      expect((await send(id, `question ${i}`)).turn.status).toBe("completed");
    }
    const messages = f.llm.chatBodies().at(-1)!.messages as { role: string; content: string }[];
    const users = messages.filter((m) => m.role === "user").map((m) => m.content);
    expect(users).toEqual(["question 2", "question 3", "question 4", "question 5", "question 6", "question 7"]);
    expect(messages[0].content).toContain('Summary of 1 earlier turn of this session:\n- user "question 1"; builder "answer 1"');
    const view = BuilderSessionDetailSchema.parse((await f.call("GET", `/api/builder/sessions/${id}?messages=2`)).body);
    expect(view.totalMessages).toBe(14);
    expect(view.messages.map((m) => ("text" in m ? m.text : undefined))).toEqual(["question 7", "answer 7"]);
    const list = await f.call("GET", `/api/builder/sessions?targetType=workflow&targetId=notes&status=active`);
    expect(wire(BuilderSessionListSchema, list.body).sessions.map((s) => s.id)).toContain(id);
  });

  it("interrupts a running turn without ending the session", async () => {
    const id = await openSession();
    f.llm.enqueue({ ...textTurn("slow"), delayMs: 5000 });
    const before = f.llm.requests.length;
    const pending = f.call("POST", `/api/builder/sessions/${id}/messages`, { content: "Think long." });
    for (let i = 0; i < 200 && f.llm.requests.length === before; i++) await Bun.sleep(10);
    expect((await f.call("POST", `/api/builder/sessions/${id}/interrupt`)).body).toEqual({ interrupted: true });
    const sent = BuilderTurnResponseSchema.parse((await pending).body);
    expect(sent.turn.status).toBe("cancelled");
    expect(sent.session).toMatchObject({ status: "active", busy: false });
    expect((await f.call("POST", `/api/builder/sessions/${id}/interrupt`)).body).toEqual({ interrupted: false });
    f.llm.enqueue(textTurn("Back."));
    expect((await send(id, "Go on.")).turn.status).toBe("completed");
  });
});
