import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BuilderChangeSetResponseSchema, BuilderTurnResponseSchema, ChangePreviewSchema, type BuilderTarget, type BuilderTurn } from "@weft/types";
import { StartedRunSchema, WorkflowAnswerSchema } from "../../testing/answers.ts";
import { startTestServer, waitForRun, type TestServer } from "../../testing/test-server.ts";

/** The repository's example workflows, loaded into the fresh database. */
const EXAMPLES = fileURLToPath(new URL("../../../../../workflows", import.meta.url));

// A real server with the built-in demo LLM as its default (and so the Builder's) profile: no key, no scripted model.
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ examplesDir: EXAMPLES });
});
afterAll(() => t.stop());

/** A Builder session on `target` whose first message is `message`; its turn runs before the answer. */
async function ask(target: BuilderTarget, message: string) {
  const created = await t.call("POST", "/api/builder/sessions", { target, message });
  expect(created.status).toBe(201);
  const answer = BuilderTurnResponseSchema.parse(created.body);
  expect(answer.turn.status).toBe("completed");
  const sessionId: string = answer.session.id;
  const latest = await t.call("GET", `/api/builder/sessions/${sessionId}/change-sets/latest`);
  return { sessionId, turn: answer.turn, changeSet: latest.status === 200 ? BuilderChangeSetResponseSchema.parse(latest.body).changeSet : null, latestStatus: latest.status };
}

/** The demo's plan as the tool names it called, in order. */
function toolNames(turn: BuilderTurn): string[] {
  expect(turn.toolCalls.filter((c) => !c.ok)).toEqual([]);
  return turn.toolCalls.map((c) => c.name);
}

/** Previews the latest change set, applies it as the user would, and returns the preview's object and the stored workflow. */
async function previewAndApply(sessionId: string, changeSetId: string, workflowId: string) {
  const preview = await t.call("GET", `/api/builder/sessions/${sessionId}/change-sets/latest/preview`);
  expect(preview.status).toBe(200);
  expect(preview.body).toMatchObject({ changeSetId, status: "validated", validation: { valid: true, errors: [] } });
  const previewed = ChangePreviewSchema.parse(preview.body);
  const object = previewed.objects.find((o) => o.key === workflowId);
  expect(object).toMatchObject({ type: "workflow", action: "update", stale: false });
  const applied = await t.call("POST", `/api/builder/sessions/${sessionId}/apply`, { changeSetId, confirmSource: "ui_manual_apply", revisionBase: previewed.revisionBase });
  expect(applied.status).toBe(200);
  expect(applied.body).toMatchObject({ applied: true, changeSetId });
  const stored = await t.call("GET", `/api/workflows/${workflowId}`);
  return { object: object!, workflow: WorkflowAnswerSchema.parse(stored.body).workflow };
}

async function runOutputs(workflowId: string, inputs: Record<string, unknown>) {
  const started = await t.call("POST", `/api/workflows/${workflowId}/runs`, { inputs });
  expect(started.status).toBe(202);
  const { run } = await waitForRun(t, StartedRunSchema.parse(started.body).runId);
  expect(run.status).toBe("completed");
  return run.outputs as Record<string, unknown>;
}

describe("the Builder with the built-in demo LLM", () => {
  it("adds a node that uppercases the output: reads, stages, validates; the user previews and applies; the workflow runs with it", async () => {
    const { sessionId, turn, changeSet } = await ask({ type: "workflow", workflowId: "text-pipeline" }, "Add a node that uppercases the output");
    expect(toolNames(turn)).toEqual([
      "builder.context.get",
      "builder.node.read",
      "builder.node.read",
      "builder.node.read",
      "builder.node.read",
      "builder.catalog.list",
      "builder.catalog.list",
      "builder.change.stage",
      "builder.change.validate",
    ]);
    expect(turn.assistantSummary).toContain('Add a Trim / change case node "text-transform" (case: upper) between "mark" and "out_text"');
    expect(turn.assistantSummary).toContain("passed validation");
    expect(changeSet).toMatchObject({ status: "validated", objects: [{ type: "workflow", key: "text-pipeline", deleted: false }] });
    expect(changeSet?.operations.map((o: { op: string }) => o.op)).toEqual(["node.put", "edge.put", "edge.put"]);

    const { object, workflow } = await previewAndApply(sessionId, changeSet!.id, "text-pipeline");
    expect(object.graph?.nodes.added.map((n: { id: string }) => n.id)).toEqual(["text-transform"]);
    expect(object.graph?.edges.added.map((e: { source: string; target: string }) => `${e.source}→${e.target}`)).toEqual(["mark→text-transform"]);
    expect(object.graph?.edges.changed.map((c: { after: { source: string; target: string } }) => `${c.after.source}→${c.after.target}`)).toEqual(["text-transform→out_text"]);

    expect(workflow.revision).toBe(2);
    expect(workflow.nodes.find((n: { id: string }) => n.id === "text-transform")).toMatchObject({ type: "core:text-transform", config: { case: "upper" } });
    const outputs = await runOutputs("text-pipeline", { topic: "looms" });
    expect(outputs.text).toBe((outputs.text as string).toUpperCase());
    expect(outputs.text).toContain("LOOMS NOTES");
    expect(outputs.lines).toBe(4);
  });

  it("renames the workflow", async () => {
    const { sessionId, turn, changeSet } = await ask({ type: "workflow", workflowId: "branch" }, "Rename the workflow to Pass mark check");
    expect(toolNames(turn)).toEqual(["builder.context.get", "builder.change.stage", "builder.change.validate"]);
    expect(changeSet?.operations).toEqual([{ op: "workflow.put", target: expect.anything() }]);
    const { object, workflow } = await previewAndApply(sessionId, changeSet!.id, "branch");
    expect(object.changes).toEqual([{ op: "replace", path: "name", before: "Pass or fail", after: "Pass mark check" }]);
    expect(workflow).toMatchObject({ name: "Pass mark check", revision: 2 });
  });

  it("sets the description", async () => {
    const { sessionId, changeSet } = await ask({ type: "workflow", workflowId: "switch-route" }, 'Please set the description to "Picks the packaging for an order size."');
    expect(changeSet?.status).toBe("validated");
    const { object, workflow } = await previewAndApply(sessionId, changeSet!.id, "switch-route");
    expect(object.changes.map((c: { path: string }) => c.path)).toEqual(["description"]);
    expect(workflow.description).toBe("Picks the packaging for an order size.");
  });

  it("sets a node's setting, typed by its node type", async () => {
    const { sessionId, turn, changeSet } = await ask({ type: "workflow", workflowId: "partial-failure" }, "Set template of greet to Welcome, {{0}}!");
    expect(toolNames(turn)).toEqual(["builder.context.get", "builder.node.read", "builder.change.stage", "builder.change.validate"]);
    expect(changeSet?.operations.map((o: { op: string }) => o.op)).toEqual(["node.put"]);
    const { object, workflow } = await previewAndApply(sessionId, changeSet!.id, "partial-failure");
    expect(object.changes).toEqual([{ op: "replace", path: "nodes[id=greet].config.template", before: expect.any(String), after: "Welcome, {{0}}!" }]);
    expect(workflow.nodes.find((n: { id: string }) => n.id === "greet")?.config?.template).toBe("Welcome, {{0}}!");
  });

  it("changes its own node in a node session", async () => {
    const { sessionId, changeSet } = await ask({ type: "node", workflowId: "build-messages", nodeId: "system" }, "set role to assistant");
    expect(changeSet?.status).toBe("validated");
    const { workflow } = await previewAndApply(sessionId, changeSet!.id, "build-messages");
    expect(workflow.nodes.find((n: { id: string }) => n.id === "system")?.config?.role).toBe("assistant");
  });

  it("adds a named node type after a node, with settings from the message", async () => {
    const { sessionId, turn, changeSet } = await ask({ type: "workflow", workflowId: "summarize-skill" }, "add a regex replace node after tidy with pattern: [aeiou] and replacement: *");
    expect(turn.assistantSummary).toContain('Add a Regex replace node "regex-replace" between "tidy" and "words"');
    const { workflow } = await previewAndApply(sessionId, changeSet!.id, "summarize-skill");
    const inserted = workflow.nodes.find((n: { id: string }) => n.id === "regex-replace");
    expect(inserted?.inputs).toEqual({ pattern: "[aeiou]", replacement: "*" });
    // Between tidy (500, 0) and words (750, 0) there is no room in line: the nearest free row, just below them.
    expect(inserted?.position).toEqual({ x: 625, y: 200 });
    expect(
      workflow.edges
        .filter((e: { source: string; target: string }) => e.source === "regex-replace" || e.target === "regex-replace")
        .map((e: { source: string; target: string }) => `${e.source}→${e.target}`),
    ).toEqual(["regex-replace→words", "tidy→regex-replace"]);
  });

  it("removes a node and bridges the gap it leaves", async () => {
    const { sessionId, turn, changeSet } = await ask({ type: "workflow", workflowId: "fan-out-fan-in" }, "remove node wait_a");
    expect(turn.assistantSummary).toContain('Remove node "wait_a" and connect "shout" to "join" instead');
    expect(changeSet?.operations.map((o: { op: string }) => o.op)).toEqual(["edge.put", "node.remove"]);
    const { object, workflow } = await previewAndApply(sessionId, changeSet!.id, "fan-out-fan-in");
    expect(object.graph?.nodes.removed.map((n: { id: string }) => n.id)).toEqual(["wait_a"]);
    expect(workflow.nodes.map((n: { id: string }) => n.id)).not.toContain("wait_a");
    const outputs = await runOutputs("fan-out-fan-in", { text: "a loom" });
    expect(outputs.summary).toBe("A LOOM (2 words, 3 vowels)");
  });

  it("answers anything else with what it understands, staging nothing", async () => {
    const before = WorkflowAnswerSchema.parse((await t.call("GET", "/api/workflows/calls-skill")).body).workflow;
    const { turn, changeSet, latestStatus } = await ask({ type: "workflow", workflowId: "calls-skill" }, "Make this workflow faster and smarter");
    expect(toolNames(turn)).toEqual(["builder.context.get"]);
    expect(changeSet).toBeNull();
    expect(latestStatus).toBe(404);
    expect(turn.assistantSummary).toContain('This session is on workflow "calls-skill"');
    expect(turn.assistantSummary).toContain("rename the workflow to <name>");
    expect(turn.assistantSummary).toContain("add a <node type> node after <node>");
    expect(turn.assistantSummary).toContain("Settings → LLM profiles");
    expect(WorkflowAnswerSchema.parse((await t.call("GET", "/api/workflows/calls-skill")).body).workflow).toEqual(before);
  });

  it("says plainly why a supported request cannot be done, staging nothing", async () => {
    const { turn, changeSet } = await ask({ type: "workflow", workflowId: "partial-failure" }, "set colour of greet to red");
    expect(changeSet).toBeNull();
    expect(turn.assistantSummary).toContain('Node "greet" (core:text-template) has no setting "colour". It has: template, onMissing');
    const outOfScope = await ask({ type: "node", workflowId: "build-messages", nodeId: "user" }, "Rename the workflow to Chat");
    expect(outOfScope.changeSet).toBeNull();
    expect(outOfScope.turn.assistantSummary).toContain('This session may change only node "user"');
  });
});
