import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import {
  BuilderChangeSetResponseSchema,
  BuilderSessionDetailSchema,
  BuilderSessionStateSchema,
  BuilderTurnResponseSchema,
  ChangePreviewSchema,
  type BuilderTurnResponse,
  type ValidationReport,
} from "@weft/types";
import { ErrorBodySchema } from "../../testing/error-body.ts";
import { fillNode, newRevisionOf, notesWorkflow, startBuilderFixture, textTurn, toolTurn, type BuilderFixture } from "../testing/builder-fixture.ts";

let f: BuilderFixture;

beforeAll(async () => {
  f = await startBuilderFixture();
  for (const id of ["notes", "caller", "helper"]) expect((await f.call("POST", "/api/workflows", { workflow: notesWorkflow(id) })).status).toBe(201);
  const agent = { id: "writer", name: "Writer", deliberationWorkflowId: "notes", persona: "Follow the guide in @project/guides/tone.md." };
  expect((await f.call("POST", "/api/agents", agent)).status).toBe(201);
  mkdirSync(join(f.projectDir, "guides"), { recursive: true });
  writeFileSync(join(f.projectDir, "guides", "tone.md"), "Be brief.\nBe kind.\n");
});
afterAll(async () => {
  await f.stop();
});

async function open(target: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<string> {
  const created = await f.call("POST", "/api/builder/sessions", { target, mode: "optimize", llmProfileId: f.profileId, maxRepairRounds: 0, ...extra });
  expect(created.status, created.text).toBe(201);
  return BuilderSessionStateSchema.parse(created.body).session.id;
}

/** Has the scripted model stage `operations` and validate them; returns the message answer. */
async function stage(sessionId: string, operations: unknown[]) {
  f.llm.enqueue(toolTurn(["builder_change_stage", { summary: "test change", operations }]), toolTurn(["builder_change_validate", {}]), textTurn("Staged."));
  const sent = await f.call("POST", `/api/builder/sessions/${sessionId}/messages`, { content: "Make the change." });
  expect(sent.status, sent.text).toBe(200);
  return BuilderTurnResponseSchema.parse(sent.body);
}

/** The validation report of the answer's latest change set (the test fails without one). */
function reportOf(answer: BuilderTurnResponse): ValidationReport {
  const report = answer.latestChangeSet?.validation;
  if (!report) throw new Error(`no validated change set in ${JSON.stringify(answer.latestChangeSet)}`);
  return report;
}

const codes = (report: ValidationReport) => report.errors.map((e) => e.code);

/** The preview of the session's latest change set. */
async function preview(sessionId: string) {
  return ChangePreviewSchema.parse((await f.call("GET", `/api/builder/sessions/${sessionId}/change-sets/latest/preview`)).body);
}

/** The ports of the nodes a preview adds, as the server sent them (no defaults filled in). */
const AddedPortsSchema = z.object({
  objects: z.array(
    z.object({ graph: z.object({ nodes: z.object({ added: z.array(z.object({ id: z.string(), ports: z.object({ inputs: z.unknown(), outputs: z.array(z.object({ id: z.string() })) }) })) }) }) }),
  ),
});

describe("impact boundary", () => {
  it("lets a node session change its node and add wired nodes, but not edit other nodes", async () => {
    const id = await open({ type: "node", workflowId: "notes", nodeId: "fill" });
    const added = await stage(id, [
      { op: "node.put", workflowId: "notes", node: fillNode("Node scope {{0}}") },
      { op: "node.put", workflowId: "notes", node: { id: "upper", type: "core:text-transform", config: { case: "upper" } } },
      { op: "edge.put", workflowId: "notes", edge: { id: "e-up", source: "fill", sourceHandle: "text", target: "upper", targetHandle: "text" } },
    ]);
    expect(reportOf(added)).toMatchObject({ valid: true, errors: [] });

    const outside = await stage(id, [{ op: "node.put", workflowId: "notes", node: { id: "topic", type: "core:workflow-input", config: { name: "subject", portType: "string" } } }]);
    const report = reportOf(outside);
    expect(report.valid).toBe(false);
    expect(report.errors).toEqual([expect.objectContaining({ code: "AI_IMPACT_OUT_OF_SCOPE", stage: "boundary", nodeId: "topic" })]);
    expect(report.errors[0].hint).toContain("/scope");
  });

  it("refuses objects outside the target until the user widens the scope", async () => {
    const id = await open({ type: "workflow", workflowId: "notes" });
    const ops = [{ op: "node.put", workflowId: "helper", node: fillNode("Helper {{0}}") }];
    expect(codes(reportOf(await stage(id, ops)))).toEqual(["AI_IMPACT_OUT_OF_SCOPE"]);
    const widened = await f.call("PUT", `/api/builder/sessions/${id}/scope`, { extra: [{ type: "workflow", id: "helper" }] });
    expect(BuilderSessionStateSchema.parse(widened.body).session.scope).toEqual({ extra: [{ type: "workflow", id: "helper" }] });
    const revalidated = await f.call("POST", `/api/builder/sessions/${id}/change-sets/latest/validate`);
    expect(BuilderChangeSetResponseSchema.parse(revalidated.body).changeSet).toMatchObject({ status: "validated", validation: { valid: true } });
  });
});

describe("reference integrity", () => {
  it("finds skills that do not exist, and fills a skill node's ports from the skill's interface", async () => {
    const id = await open({ type: "workflow", workflowId: "caller" });
    const missing = await stage(id, [{ op: "node.put", workflowId: "caller", node: { id: "sub", type: "core:skill", config: { workflowId: "nope" } } }]);
    expect(reportOf(missing).errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: "AI_REF_WORKFLOW_NOT_FOUND", stage: "references", objectKey: "caller", nodeId: "sub", path: "nodes.sub.config.workflowId" })]),
    );
    const fixed = await stage(id, [
      { op: "node.put", workflowId: "caller", node: { id: "sub", type: "core:skill", config: { workflowId: "helper" } } },
      { op: "edge.put", workflowId: "caller", edge: { id: "e-sub", source: "fill", sourceHandle: "text", target: "sub", targetHandle: "topic" } },
    ]);
    expect(reportOf(fixed)).toMatchObject({ valid: true });
    const previewed = await f.call("GET", `/api/builder/sessions/${id}/change-sets/latest/preview`);
    const sub = AddedPortsSchema.parse(previewed.body).objects[0].graph.nodes.added.find((n) => n.id === "sub");
    expect(sub?.ports.inputs).toEqual([{ id: "topic", type: "string", required: true, multi: false, label: "topic" }]);
    expect(sub?.ports.outputs.map((p) => p.id)).toEqual(["text"]);
  });

  it("refuses a skill that calls itself and the deletion of a workflow still in use", async () => {
    const loop = await open({ type: "workflow", workflowId: "helper" });
    const looped = await stage(loop, [{ op: "node.put", workflowId: "helper", node: { id: "self", type: "core:skill", config: { workflowId: "helper" } } }]);
    expect(codes(reportOf(looped))).toContain("AI_REF_SKILL_RECURSION");

    const del = await open({ type: "workflow", workflowId: "notes" });
    const deleted = await stage(del, [{ op: "workflow.delete", workflowId: "notes" }]);
    expect(reportOf(deleted).errors).toEqual([expect.objectContaining({ code: "AI_REF_BROKEN_BY_DELETE", objectKey: "notes", message: expect.stringContaining('agent profile "writer"') })]);
  });

  it("checks an agent's deliberation workflow, skills and tools", async () => {
    const id = await open({ type: "agent", agentId: "writer" });
    const agent = { id: "writer", name: "Writer", deliberationWorkflowId: "missing-flow", skills: ["helper", "ghost"], tools: ["core:text-templat"] };
    const report = reportOf(await stage(id, [{ op: "agent.put", agent }]));
    expect(report.errors.map((e) => [e.code, e.path])).toEqual([
      ["AI_REF_WORKFLOW_NOT_FOUND", "deliberationWorkflowId"],
      ["AI_REF_WORKFLOW_NOT_FOUND", "skills.1"],
      ["AI_REF_NODE_TYPE_UNKNOWN", "tools.0"],
    ]);
    expect(report.errors[2].hint).toContain('"core:text-template"');
  });
});

describe("assets", () => {
  it("refuses unsafe and read-only paths with the ToolHost's reasons", async () => {
    mkdirSync(join(f.projectDir, "linked"), { recursive: true });
    symlinkSync("/etc", join(f.projectDir, "linked", "etc"));
    const id = await open(
      { type: "asset", path: "@project/guides/tone.md" },
      {
        scope: {
          extra: [
            { type: "asset", id: "@project/" },
            { type: "asset", id: "@pkg/" },
          ],
        },
      },
    );
    const report = reportOf(
      await stage(id, [
        { op: "asset.put", path: "@project/../escape.md", content: "x" },
        { op: "asset.put", path: "@pkg/readme.md", content: "x" },
        { op: "asset.put", path: "@project/linked/etc/passwd", content: "x" },
        { op: "asset.put", path: "@state/notes.md", content: "x" },
      ]),
    );
    const pathErrors = report.errors.filter((e) => e.stage === "path");
    const byPath = Object.fromEntries(pathErrors.map((e) => [e.objectKey, e]));
    expect(Object.keys(byPath).sort()).toEqual(["@pkg/readme.md", "@project/../escape.md", "@project/linked/etc/passwd", "@state/notes.md"]);
    expect(byPath["@state/notes.md"]).toMatchObject({ code: "AI_PATH_UNSAFE", message: expect.stringContaining("private files of runs") });
    expect(existsSync(join(f.t.dataDir, "state", id))).toBe(false);
    expect(byPath["@project/../escape.md"]).toMatchObject({ code: "AI_PATH_UNSAFE", stage: "path", message: expect.stringContaining("`..` segment") });
    expect(byPath["@pkg/readme.md"]).toMatchObject({ code: "AI_PATH_READ_ONLY", hint: expect.stringContaining("@project/readme.md") });
    expect(byPath["@project/linked/etc/passwd"]).toMatchObject({ code: "AI_PATH_UNSAFE", message: expect.stringContaining("symbolic link") });
  });

  it("edits an asset by path through the ToolHost: read on demand, staged, previewed as text, written on apply", async () => {
    const id = await open({ type: "asset", path: "@project/guides/tone.md" });
    const session = BuilderSessionDetailSchema.parse((await f.call("GET", `/api/builder/sessions/${id}`)).body);
    expect(session.session.contextEnvelope).toMatchObject({ referencedAssetPaths: ["@project/guides/tone.md"], targetRevision: expect.stringMatching(/^[0-9a-f]{64}$/) });

    f.llm.enqueue(
      toolTurn(["builder_asset_read", { path: "@project/guides/tone.md" }]),
      toolTurn(["builder_change_stage", { summary: "warmer tone", operations: [{ op: "asset.put", path: "@project/guides/./tone.md", content: "Be brief.\nBe warm.\n" }] }]),
      toolTurn(["builder_asset_read", { path: "@project/guides/tone.md", offset: 2 }], ["builder_change_validate", {}]),
      textTurn("Made the tone warmer."),
    );
    const sent = BuilderTurnResponseSchema.parse((await f.call("POST", `/api/builder/sessions/${id}/messages`, { content: "Warmer tone please." })).body);
    const bodies = f.llm.chatBodies();
    const system = (bodies.at(-4)!.messages as { content: string }[])[0].content;
    expect(system).toContain("@project/guides/tone.md");
    expect(system).not.toContain("Be kind."); // referenced by path, never inlined
    const toolResults = (bodies.at(-1)!.messages as { role: string; content: string }[]).filter((m) => m.role === "tool").map((m) => JSON.parse(m.content));
    expect(toolResults[0]).toMatchObject({ ok: true, source: "stored", content: "Be brief.\nBe kind.\n" });
    expect(toolResults[2]).toMatchObject({ ok: true, source: "working-copy", content: "Be warm.\n", lineStart: 2 });
    expect(sent.latestChangeSet).toMatchObject({ status: "validated", objects: [{ type: "asset", key: "@project/guides/tone.md" }] });
    expect(readFileSync(join(f.projectDir, "guides", "tone.md"), "utf8")).toBe("Be brief.\nBe kind.\n");

    const [asset] = (await preview(id)).objects;
    expect(asset).toMatchObject({ type: "asset", action: "update", before: "Be brief.\nBe kind.\n", after: "Be brief.\nBe warm.\n", stale: false });
    expect(asset.unifiedDiff).toMatch(/^-Be kind\.$/m);
    expect(asset.unifiedDiff).toMatch(/^\+Be warm\.$/m);

    const applied = await f.call("POST", `/api/builder/sessions/${id}/apply`, { changeSetId: sent.latestChangeSet?.id, confirmSource: "ui_manual_apply" });
    expect(applied.body).toMatchObject({ applied: true, warnings: [] });
    expect(readFileSync(join(f.projectDir, "guides", "tone.md"), "utf8")).toBe("Be brief.\nBe warm.\n");
    expect(newRevisionOf(applied.body).assets["@project/guides/tone.md"]).toBe(new Bun.CryptoHasher("sha256").update("Be brief.\nBe warm.\n").digest("hex"));
    const audit = readFileSync(join(f.t.dataDir, "audit", "tools.jsonl"), "utf8");
    expect(audit).toContain('"agentId":"builder-ai"');
  });

  it("finds what mentions an asset", async () => {
    const id = await open({ type: "asset", path: "@project/guides/tone.md" });
    f.llm.enqueue(toolTurn(["builder_refs_find", { locator: { type: "asset", id: "@project/guides/tone.md" } }]), textTurn("The writer agent uses it."));
    await f.call("POST", `/api/builder/sessions/${id}/messages`, { content: "Who uses this?" });
    const result = JSON.parse((f.llm.chatBodies().at(-1)!.messages as { content: string }[]).at(-1)!.content);
    expect(result.inbound).toEqual([{ from: { type: "agent", id: "writer" }, to: { type: "asset", id: "@project/guides/tone.md" }, field: "persona" }]);
  });
});

describe("sessions", () => {
  it("checks the target against the mode", async () => {
    const missing = await f.call("POST", "/api/builder/sessions", { target: { type: "workflow", workflowId: "nope" }, mode: "optimize" });
    expect(missing.status).toBe(404);
    expect(ErrorBodySchema.parse(missing.body).error.code).toBe("AI_TARGET_NOT_FOUND");
    const exists = await f.call("POST", "/api/builder/sessions", { target: { type: "workflow", workflowId: "notes" }, mode: "create" });
    expect(exists.status).toBe(409);
    expect(ErrorBodySchema.parse(exists.body).error.code).toBe("AI_TARGET_EXISTS");
    const badBody = await f.call("POST", "/api/builder/sessions", { target: { type: "flow", id: "x" } });
    expect(badBody.status).toBe(400);
    expect(ErrorBodySchema.parse(badBody.body).error.code).toBe("VALIDATION_FAILED");
    const noProfile = await f.call("POST", "/api/builder/sessions", { target: { type: "workflow", workflowId: "notes" }, llmProfileId: "nobody" });
    expect(noProfile.status).toBe(404);
  });

  it("creates a new workflow in create mode and applies it at revision 1", async () => {
    const id = BuilderSessionStateSchema.parse((await f.call("POST", "/api/builder/sessions", { target: { type: "workflow", workflowId: "fresh" }, mode: "create", llmProfileId: f.profileId })).body)
      .session.id;
    const body = await stage(id, [{ op: "workflow.put", workflow: { ...notesWorkflow("fresh"), name: "Fresh" } }]);
    expect(reportOf(body).valid).toBe(true);
    const [created] = (await preview(id)).objects;
    expect(created).toMatchObject({ action: "create", baseRevision: null, storedRevision: null });
    expect(created.graph?.nodes.added).toHaveLength(3);
    const applied = await f.call("POST", `/api/builder/sessions/${id}/apply`, { changeSetId: body.latestChangeSet?.id, confirmSource: "ui_manual_apply" });
    expect(newRevisionOf(applied.body).workflows).toEqual({ fresh: 1 });
    expect((await f.call("GET", "/api/workflows/fresh")).body).toMatchObject({ workflow: { name: "Fresh", revision: 1 } });
  });

  it("discards the working copy on the user's request", async () => {
    const id = await open({ type: "workflow", workflowId: "notes" });
    await stage(id, [{ op: "node.put", workflowId: "notes", node: fillNode("Discard me {{0}}") }]);
    const discarded = await f.call("POST", `/api/builder/sessions/${id}/change-sets/latest/discard`);
    expect(BuilderChangeSetResponseSchema.parse(discarded.body).changeSet).toMatchObject({ status: "rejected", statusReason: "discarded" });
    f.llm.enqueue(toolTurn(["builder_workflow_read", { workflowId: "notes" }]), textTurn("Back to the stored version."));
    await f.call("POST", `/api/builder/sessions/${id}/messages`, { content: "Show it." });
    const read = JSON.parse((f.llm.chatBodies().at(-1)!.messages as { content: string }[]).at(-1)!.content);
    expect(read).toMatchObject({ source: "stored" });
    expect(JSON.stringify(read.workflow)).not.toContain("Discard me");
  });

  it("talks to the default profile (the built-in demo LLM) when the session names none", async () => {
    const created = await f.call("POST", "/api/builder/sessions", { target: { type: "workflow", workflowId: "notes" }, message: "Read the workflow notes" });
    expect(created.status).toBe(201);
    const { turn } = BuilderTurnResponseSchema.parse(created.body);
    expect(turn.status).toBe("completed");
    expect(turn.toolCalls.length).toBeGreaterThan(0);
    expect(turn.assistantSummary.length).toBeGreaterThan(0);
  });
});
