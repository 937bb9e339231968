import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BuilderApplyResponseSchema, BuilderSessionDetailSchema, BuilderSessionStateSchema, BuilderTurnResponseSchema, ChangePreviewSchema, ValidationReportSchema } from "@weft/types";
import { WorkflowAnswerSchema } from "../../testing/answers.ts";
import { ErrorBodySchema } from "../../testing/error-body.ts";
import {
  API_KEY,
  AppliedObjectsSchema,
  AuditAnswerSchema,
  builderRows,
  businessSnapshot,
  ChangeSetListSchema,
  fillNode,
  notesWorkflow,
  startBuilderFixture,
  textTurn,
  toolTurn,
  type BuilderFixture,
} from "../testing/builder-fixture.ts";

let f: BuilderFixture;
let wfCount = 0;
/** A fresh `notes` workflow per test, so each test starts from revision 1. */
let workflowId: string;

beforeAll(async () => {
  f = await startBuilderFixture();
});
afterAll(async () => {
  // No answer of the whole file carried the key, not even a fragment of it.
  for (const text of f.answers) {
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain(API_KEY.slice(10, 34));
  }
  await f.stop();
});
beforeEach(async () => {
  workflowId = `notes-${++wfCount}`;
  expect((await f.call("POST", "/api/workflows", { workflow: notesWorkflow(workflowId) })).status).toBe(201);
});

async function session(extra: Record<string, unknown> = {}): Promise<string> {
  const created = await f.call("POST", "/api/builder/sessions", { target: { type: "workflow", workflowId }, mode: "optimize", llmProfileId: f.profileId, ...extra });
  expect(created.status).toBe(201);
  return BuilderSessionStateSchema.parse(created.body).session.id;
}

/** One user message to the session: the answer with its turn. */
async function send(sessionId: string, content: string) {
  return BuilderTurnResponseSchema.parse((await f.call("POST", `/api/builder/sessions/${sessionId}/messages`, { content })).body);
}

/** The session's audit events. */
async function auditOf(sessionId: string) {
  return AuditAnswerSchema.parse((await f.call("GET", `/api/builder/sessions/${sessionId}/audit`)).body).events;
}

const storedWorkflow = async (id: string) => WorkflowAnswerSchema.parse((await f.call("GET", `/api/workflows/${id}`)).body).workflow;
const errorOf = (body: unknown) => ErrorBodySchema.parse(body).error;

const stageFill = (template: string) => toolTurn(["builder_change_stage", { summary: `template: ${template}`, operations: [{ op: "node.put", workflowId, node: fillNode(template) }] }]);

describe("the model cannot apply", () => {
  it("refuses builder.change.apply with AI_TOOL_FORBIDDEN as a tool result, and nothing stored changes", async () => {
    const id = await session();
    const before = businessSnapshot(f.t.dataDir, f.projectDir);
    f.llm.enqueue(
      stageFill("Applied by the model?"),
      toolTurn(["builder_change_apply", { sessionId: id, changeSetId: "latest", confirmSource: "ui_manual_apply" }]),
      textTurn("I could not apply it."),
    );
    const sent = await send(id, "Change the template and apply it yourself.");
    expect(sent.turn.toolCalls.map((c) => [c.name, c.ok, c.code])).toEqual([
      ["builder.change.stage", true, undefined],
      ["builder.change.apply", false, "AI_TOOL_FORBIDDEN"],
    ]);
    const toolMessage = (f.llm.chatBodies().at(-1)!.messages as { role: string; content: string }[]).at(-1)!;
    expect(toolMessage.role).toBe("tool");
    expect(JSON.parse(toolMessage.content)).toMatchObject({ ok: false, error: { code: "AI_TOOL_FORBIDDEN" } });
    expect(businessSnapshot(f.t.dataDir, f.projectDir)).toBe(before);
    expect(sent.latestChangeSet?.status).toBe("validated"); // validated by the server at the end of the turn, never applied
    const audit = (await auditOf(id)).map((e) => e.type);
    expect(audit).toContain("ai.tool.forbidden");
    expect(audit).not.toContain("ai.apply.succeeded");
  });
});

describe("tool calls the model gets wrong", () => {
  it("maps dotted names, and answers unknown tools, bad JSON and bad arguments with codes the model can act on", async () => {
    const id = await session();
    f.llm.enqueue(
      {
        kind: "tool_calls",
        calls: [
          { name: "builder.workflow.read", arguments: JSON.stringify({ workflowId }) },
          { name: "builder_change_publish", arguments: "{}" },
          { name: "builder_node_read", arguments: '{"workflowId": ' },
          { name: "builder_node_read", arguments: JSON.stringify({ workflowId, node: "fill" }) },
          { name: "builder_workflow_read", arguments: JSON.stringify({ workflowId, sessionId: "bs_someone-else" }) },
        ],
      },
      textTurn("Sorry."),
    );
    const sent = await send(id, "Look around.");
    expect(sent.turn.toolCalls.map((c) => [c.name, c.code])).toEqual([
      ["builder.workflow.read", undefined],
      ["builder_change_publish", "AI_TOOL_UNKNOWN"],
      ["builder.node.read", "AI_TOOL_ARGS_INVALID"],
      ["builder.node.read", "AI_TOOL_ARGS_INVALID"],
      ["builder.workflow.read", "AI_TOOL_ARGS_INVALID"],
    ]);
    const results = (f.llm.chatBodies().at(-1)!.messages as { role: string; content: string }[]).filter((m) => m.role === "tool").map((m) => JSON.parse(m.content));
    expect(results[1].error.hint).toContain("builder_change_stage");
    expect(results[2].error.message).toContain("not valid JSON");
    expect(results[3].error.message).toMatch(/nodeId/);
    expect(results[4].error.message).toContain("is not this session");
  });
});

describe("cancel", () => {
  it("discards the working copy (workflow and asset) and leaves the stored objects and files byte for byte as they were", async () => {
    const id = await session({ scope: { extra: [{ type: "asset", id: "@project/notes/" }] } });
    const before = businessSnapshot(f.t.dataDir, f.projectDir);
    f.llm.enqueue(
      toolTurn([
        "builder_change_stage",
        {
          summary: "template and a style guide",
          operations: [
            { op: "node.put", workflowId, node: fillNode("Cancelled {{0}}") },
            { op: "asset.put", path: "@project/notes/style.md", content: "# Style\nShort lines.\n" },
          ],
        },
      ]),
      toolTurn(["builder_change_validate", {}]),
      textTurn("Staged."),
    );
    const sent = await send(id, "Add a style guide.");
    expect(sent.latestChangeSet?.status).toBe("validated");
    expect(builderRows(f.t.dataDir, "builder_working_copy", id)).toHaveLength(2);

    const cancelled = await f.call("POST", `/api/builder/sessions/${id}/cancel`);
    expect(cancelled.status).toBe(200);
    const state = BuilderSessionStateSchema.parse(cancelled.body);
    expect(state.session.status).toBe("cancelled");
    expect(state.latestChangeSet).toMatchObject({ status: "rejected", statusReason: "cancelled" });
    expect(builderRows(f.t.dataDir, "builder_working_copy", id)).toEqual([]);
    expect(businessSnapshot(f.t.dataDir, f.projectDir)).toBe(before);
    expect(existsSync(join(f.projectDir, "notes", "style.md"))).toBe(false);

    const apply = await f.call("POST", `/api/builder/sessions/${id}/apply`, { changeSetId: sent.latestChangeSet?.id, confirmSource: "ui_manual_apply" });
    expect(apply.status).toBe(409);
    expect(errorOf(apply.body).code).toBe("AI_SESSION_NOT_ACTIVE");
    const message = await f.call("POST", `/api/builder/sessions/${id}/messages`, { content: "more" });
    expect(errorOf(message.body).code).toBe("AI_SESSION_NOT_ACTIVE");
    expect(businessSnapshot(f.t.dataDir, f.projectDir)).toBe(before);
  });

  it("stops a turn that is waiting for the model; the call is aborted and nothing is staged", async () => {
    const id = await session();
    const before = businessSnapshot(f.t.dataDir, f.projectDir);
    // Far longer than the bound below: a cancel that waited for the model's answer fails it, however busy the machine.
    f.llm.enqueue({ ...stageFill("Too late"), delayMs: 600_000 });
    const pending = f.call("POST", `/api/builder/sessions/${id}/messages`, { content: "Change it." });
    const requests = f.llm.requests.length;
    for (let i = 0; i < 200 && f.llm.requests.length === requests; i++) await Bun.sleep(10);
    expect(BuilderSessionDetailSchema.parse((await f.call("GET", `/api/builder/sessions/${id}`)).body).session.busy).toBe(true);
    const busy = await f.call("POST", `/api/builder/sessions/${id}/messages`, { content: "again" });
    expect(busy.status).toBe(409);
    expect(errorOf(busy.body).code).toBe("AI_SESSION_BUSY");

    const started = performance.now();
    expect(BuilderSessionStateSchema.parse((await f.call("POST", `/api/builder/sessions/${id}/cancel`)).body).session.status).toBe("cancelled");
    const sent = BuilderTurnResponseSchema.parse((await pending).body);
    expect(performance.now() - started).toBeLessThan(60_000);
    expect(sent.turn.status).toBe("cancelled");
    const aborted = f.llm.requests.at(-1)!;
    for (let i = 0; i < 100 && !aborted.clientClosedEarly; i++) await Bun.sleep(10);
    expect(aborted.clientClosedEarly).toBe(true);
    expect(sent.latestChangeSet).toBeNull();
    expect(businessSnapshot(f.t.dataDir, f.projectDir)).toBe(before);
  });
});

describe("stale revisions (warning-first)", () => {
  it("warns naming the field, applies nothing until the user confirms, then applies and keeps the overwritten version in the audit", async () => {
    const id = await session();
    f.llm.enqueue(stageFill("From the Builder {{0}}"), toolTurn(["builder_change_validate", {}]), textTurn("Ready."));
    const sent = await send(id, "Change the template.");
    const changeSetId = sent.latestChangeSet!.id;

    // Someone saves the workflow in the editor meanwhile.
    const current = await storedWorkflow(workflowId);
    const edited = { ...current, description: "edited in the editor" };
    expect(WorkflowAnswerSchema.parse((await f.call("PUT", `/api/workflows/${workflowId}`, { workflow: edited, baseRevision: 1 })).body).workflow.revision).toBe(2);

    const preview = ChangePreviewSchema.parse((await f.call("GET", `/api/builder/sessions/${id}/change-sets/${changeSetId}/preview`)).body);
    expect(preview.objects[0]).toMatchObject({ baseRevision: 1, storedRevision: 2, stale: true });

    const first = await f.call("POST", `/api/builder/sessions/${id}/apply`, { changeSetId, confirmSource: "ui_manual_apply", revisionBase: preview.revisionBase });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ applied: false, requiresConfirmation: true, changeSetId });
    expect(BuilderApplyResponseSchema.parse(first.body).warnings).toEqual([
      expect.objectContaining({
        code: "AI_REVISION_BASE_MISMATCH",
        field: `workflows["${workflowId}"].revision`,
        provided: 1,
        current: 2,
        blocking: false,
        objectType: "workflow",
        objectKey: workflowId,
      }),
    ]);
    const untouched = (await f.call("GET", `/api/workflows/${workflowId}`)).body;
    expect(untouched).toMatchObject({ workflow: { revision: 2, description: "edited in the editor" } });

    const confirmed = await f.call("POST", `/api/builder/sessions/${id}/apply`, { changeSetId, confirmSource: "ui_manual_apply", revisionBase: preview.revisionBase, confirmStale: true });
    expect(confirmed.body).toMatchObject({ applied: true, sessionStatus: "active", newRevision: { workflows: { [workflowId]: 3 } } });
    const { warnings } = BuilderApplyResponseSchema.parse(confirmed.body);
    expect(warnings).toHaveLength(1);
    expect(warnings[0].field).toBe(`workflows["${workflowId}"].revision`);
    const stored = await storedWorkflow(workflowId);
    expect(stored.revision).toBe(3);
    expect(stored.nodes.find((n) => n.id === "fill")?.config.template).toBe("From the Builder {{0}}");
    const events = await auditOf(id);
    expect(events.map((e) => e.type)).toContain("ai.apply.revision_mismatch");
    const succeeded = events.find((e) => e.type === "ai.apply.succeeded");
    expect(AppliedObjectsSchema.parse(succeeded?.data).objects[0].before).toMatchObject({ revision: 2, description: "edited in the editor" });
  });
});

describe("apply is all or nothing", () => {
  it("rolls back the documents and restores the asset when the transaction fails, and applies once the cause is gone", async () => {
    const id = await session({ scope: { extra: [{ type: "asset", id: "@project/docs/" }] } });
    mkdirSync(join(f.projectDir, "docs"), { recursive: true });
    writeFileSync(join(f.projectDir, "docs", "readme.md"), "old text\n");
    const renamed = { ...notesWorkflow(workflowId), name: "boom" };
    f.llm.enqueue(
      toolTurn([
        "builder_change_stage",
        {
          summary: "rename and document",
          operations: [
            { op: "workflow.put", workflow: renamed },
            { op: "asset.put", path: "@project/docs/readme.md", content: "new text\n" },
          ],
        },
      ]),
      textTurn("Staged."),
    );
    const sent = await send(id, "Rename it and document it.");
    const changeSetId = sent.latestChangeSet?.id;
    expect(sent.latestChangeSet?.status).toBe("validated");
    const before = businessSnapshot(f.t.dataDir, f.projectDir);

    // A real SQLite failure inside apply's transaction, after the asset was written.
    const db = new Database(join(f.t.dataDir, "weft.sqlite"));
    db.run("CREATE TRIGGER refuse_boom BEFORE UPDATE ON workflows WHEN NEW.name = 'boom' BEGIN SELECT RAISE(ABORT, 'the disk says no'); END");
    const failed = await f.call("POST", `/api/builder/sessions/${id}/apply`, { changeSetId, confirmSource: "ui_manual_apply" });
    expect(failed.status).toBe(500);
    expect(errorOf(failed.body)).toMatchObject({ code: "AI_APPLY_FAILED", details: { cause: expect.stringContaining("the disk says no"), leftoverFiles: [] } });
    expect(businessSnapshot(f.t.dataDir, f.projectDir)).toBe(before);
    expect(readFileSync(join(f.projectDir, "docs", "readme.md"), "utf8")).toBe("old text\n");
    const after = BuilderSessionDetailSchema.parse((await f.call("GET", `/api/builder/sessions/${id}`)).body);
    expect(after.session.status).toBe("active");
    expect(after.latestChangeSet?.status).toBe("validated");
    expect(builderRows(f.t.dataDir, "builder_working_copy", id)).toHaveLength(2);

    db.run("DROP TRIGGER refuse_boom");
    db.close();
    const applied = await f.call("POST", `/api/builder/sessions/${id}/apply`, { changeSetId, confirmSource: "ui_manual_apply" });
    expect(applied.body).toMatchObject({ applied: true, newRevision: { workflows: { [workflowId]: 2 } } });
    expect(readFileSync(join(f.projectDir, "docs", "readme.md"), "utf8")).toBe("new text\n");
    expect((await storedWorkflow(workflowId)).name).toBe("boom");
  });

  it("warns about an asset changed on disk since it was staged, naming its hash field", async () => {
    const id = await session({ scope: { extra: [{ type: "asset", id: "@project/docs/" }] } });
    mkdirSync(join(f.projectDir, "docs"), { recursive: true });
    writeFileSync(join(f.projectDir, "docs", "guide.md"), "v1\n");
    f.llm.enqueue(toolTurn(["builder_change_stage", { summary: "guide", operations: [{ op: "asset.put", path: "@project/docs/guide.md", content: "builder\n" }] }]), textTurn("Staged."));
    const changeSetId = (await send(id, "Rewrite the guide.")).latestChangeSet?.id;
    writeFileSync(join(f.projectDir, "docs", "guide.md"), "edited by hand\n");
    const first = await f.call("POST", `/api/builder/sessions/${id}/apply`, { changeSetId, confirmSource: "ui_manual_apply" });
    expect(first.body).toMatchObject({ applied: false, requiresConfirmation: true });
    expect(BuilderApplyResponseSchema.parse(first.body).warnings).toEqual([expect.objectContaining({ field: 'assets["@project/docs/guide.md"].sha256', blocking: false })]);
    expect(readFileSync(join(f.projectDir, "docs", "guide.md"), "utf8")).toBe("edited by hand\n");
    const confirmed = await f.call("POST", `/api/builder/sessions/${id}/apply`, { changeSetId, confirmSource: "ui_manual_apply", confirmStale: true });
    expect(BuilderApplyResponseSchema.parse(confirmed.body).applied).toBe(true);
    expect(readFileSync(join(f.projectDir, "docs", "guide.md"), "utf8")).toBe("builder\n");
  });
});

describe("invalid changes", () => {
  it("rejects a cycle and an unknown node type with structured errors and hints; apply refuses it", async () => {
    const id = await session({ maxRepairRounds: 0 });
    const before = businessSnapshot(f.t.dataDir, f.projectDir);
    f.llm.enqueue(
      toolTurn([
        "builder_change_stage",
        {
          summary: "loop",
          operations: [
            { op: "node.put", workflowId, node: { id: "shout", type: "core:text-templat", config: {} } },
            { op: "edge.put", workflowId, edge: { id: "back", source: "fill", sourceHandle: "text", target: "fill", targetHandle: "values" } },
          ],
        },
      ]),
      toolTurn(["builder_change_validate", {}]),
      textTurn("It has problems."),
    );
    const sent = await send(id, "Make it loop.");
    expect(sent.turn.repairRounds).toBe(0);
    const result = JSON.parse((f.llm.chatBodies().at(-1)!.messages as { content: string }[]).at(-1)!.content);
    expect(result).toMatchObject({ ok: true, valid: false, status: "rejected", meta: { allowWrite: false } });
    const unknown = result.errors.find((e: { code: string }) => e.code === "UNKNOWN_NODE_TYPE");
    expect(unknown).toMatchObject({ stage: "graph", objectType: "workflow", objectKey: workflowId, nodeId: "shout" });
    expect(unknown.hint).toContain("core:text-template");
    const cycle = result.errors.find((e: { code: string }) => e.code === "CYCLE");
    expect(cycle).toMatchObject({ stage: "graph", nodeIds: expect.arrayContaining(["fill"]) });
    expect(typeof cycle.hint).toBe("string");

    const apply = await f.call("POST", `/api/builder/sessions/${id}/apply`, { changeSetId: sent.latestChangeSet?.id, confirmSource: "ui_manual_apply" });
    expect(apply.status).toBe(422);
    const refusal = errorOf(apply.body);
    expect(refusal.code).toBe("AI_CHANGESET_INVALID");
    expect(
      ValidationReportSchema.pick({ errors: true })
        .parse(refusal.details)
        .errors.map((e) => e.code),
    ).toEqual(expect.arrayContaining(["UNKNOWN_NODE_TYPE", "CYCLE"]));
    expect(businessSnapshot(f.t.dataDir, f.projectDir)).toBe(before);
  });

  it("asks the model to repair an invalid change, at most maxRepairRounds times", async () => {
    const id = await session({ maxRepairRounds: 1 });
    f.llm.enqueue(
      toolTurn(["builder_change_stage", { summary: "typo", operations: [{ op: "node.put", workflowId, node: { ...fillNode("x"), type: "core:text-templat" } }] }]),
      textTurn("Done."),
      toolTurn(["builder_change_stage", { summary: "fixed", operations: [{ op: "node.put", workflowId, node: fillNode("Fixed {{0}}") }] }]),
      toolTurn(["builder_change_validate", {}]),
      textTurn("Fixed the node type."),
    );
    const sent = await send(id, "Change the template.");
    expect(sent.turn).toMatchObject({ status: "completed", repairRounds: 1, assistantSummary: "Fixed the node type." });
    expect(sent.latestChangeSet).toMatchObject({ version: 2, status: "validated" });
    const repairPrompt = (f.llm.chatBodies().at(-3)!.messages as { role: string; content: string }[]).at(-1)!;
    expect(repairPrompt.role).toBe("user");
    expect(repairPrompt.content).toMatch(/^\[Builder validation\] Change set cs_\S+ \(version 1\) did not pass validation:/);
    expect(repairPrompt.content).toContain("[UNKNOWN_NODE_TYPE]");
    const sets = ChangeSetListSchema.parse((await f.call("GET", `/api/builder/sessions/${id}/change-sets`)).body).changeSets;
    expect(sets.map((s) => [s.version, s.status])).toEqual([
      [1, "superseded"],
      [2, "validated"],
    ]);
    expect(sets[0].validation?.errors[0].code).toBe("UNKNOWN_NODE_TYPE");
    const pane = BuilderSessionDetailSchema.parse((await f.call("GET", `/api/builder/sessions/${id}`)).body).messages;
    expect(pane.filter((m) => m.kind === "repair_request")).toHaveLength(1);
  });
});

describe("the API key", () => {
  it("reaches the provider, and an error echoing it comes back masked in every answer and is not stored in the database", async () => {
    const id = await session();
    f.llm.enqueue({ kind: "http_error", status: 401, message: `Incorrect API key provided: ${API_KEY}`, code: "invalid_api_key" });
    const sent = await send(id, "Hello");
    expect(f.llm.requests.at(-1)?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent.turn).toMatchObject({ status: "failed", error: { code: "AI_PROVIDER_ERROR", llmCode: "AUTH" } });
    expect(sent.turn.error?.message).toContain("Incorrect API key provided: [redacted:Scripted]");
    const pane = BuilderSessionDetailSchema.parse((await f.call("GET", `/api/builder/sessions/${id}`)).body);
    expect(pane.messages.at(-1)).toMatchObject({ kind: "error", code: "AUTH" });
    for (const file of ["weft.sqlite", "weft.sqlite-wal"].map((n) => join(f.t.dataDir, n)).filter((p) => existsSync(p))) {
      expect(readFileSync(file).includes(Buffer.from(API_KEY))).toBe(false);
    }
  });
});
