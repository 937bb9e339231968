import { afterAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { startScriptedLlmServer, type ScriptedLlmServer, type ScriptedTurn } from "../../packages/agent-runtime/src/index.ts";
import type { WorkflowInput } from "../../packages/types/src/index.ts";
import { node, openFromList, texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { notesWorkflow } from "./support/notes.ts";
import { useWeft } from "./support/weft.ts";
import { BuilderSessionDetailSchema, BuilderSessionListSchema, BuilderSettingsSchema } from "../../packages/types/src/index.ts";

let llm: ScriptedLlmServer;
const weft = useWeft({}, async () => {
  llm = await startScriptedLlmServer({ model: "builder-e2e" });
  const profile = await weft.api("POST", "/api/llm-profiles", { id: "scripted", name: "Scripted", baseUrl: llm.baseUrl, model: "builder-e2e", apiKey: "sk-builder-e2e-0123456789", maxRetries: 0 });
  if (profile.status !== 201) throw new Error(`could not create the LLM profile: ${JSON.stringify(profile.body)}`);
  await weft.createWorkflow(notes);
  await weft.createWorkflow(drafts);
});
afterAll(async () => {
  await llm?.stop();
});

const notes = notesWorkflow("Notes on {{0}}");
const drafts: WorkflowInput = { ...notes, id: "drafts", name: "Drafts" };

/** A model turn calling Builder tools by their wire names. */
const tools = (...calls: [string, unknown][]): ScriptedTurn => ({ kind: "tool_calls", calls: calls.map(([name, args]) => ({ name, arguments: JSON.stringify(args) })) });
const say = (text: string, delayMs?: number): ScriptedTurn => ({ kind: "text", chunks: [text], ...(delayMs ? { delayMs } : {}) });
const fill = (template: string, type = "core:text-template") => ({ id: "fill", type, position: { x: 320, y: 0 }, config: { template }, inputs: {} });

async function send(page: Page, text: string) {
  await page.getByTestId("builder-input").fill(text);
  await page.getByTestId("builder-send").click();
}

const diffNode = (page: Page, id: string) => page.locator(`.diff-canvas .vue-flow__node[data-id="${id}"]`);
const diffEdge = (page: Page, id: string) => page.locator(`.diff-canvas .vue-flow__edge[data-id="${id}"]`);

describe("the Builder AI workbench in the browser", () => {
  it("stages, validates, previews and applies a change to a node, and the editor shows it", async () => {
    const { page } = weft;
    await page.goto(weft.url);
    await openFromList(page, "notes");

    // Entered from the node's context menu: the session's target is that node.
    await node(page, "fill").locator(".node-header").click({ button: "right" });
    await page.locator(".context-menu").getByTestId("ask-builder-node").click();
    await poll(() => texts(page, '[data-testid="builder-target"]')).toContain("fill in notes");
    expect(await page.getByTestId("builder-mode").textContent()).toBe("optimize");

    // The user's LLM profile for the Builder (the demo LLM is the default until changed).
    await page.getByTestId("builder-profile").selectOption("scripted");
    await poll(async () => (await weft.read("/api/builder/settings", BuilderSettingsSchema)).llmProfileId).toBe("scripted");

    llm.enqueue(
      tools(
        ["builder_node_read", { workflowId: "notes", nodeId: "fill" }],
        ["builder_change_stage", { summary: "Friendlier notes title", operations: [{ op: "node.put", workflowId: "notes", node: fill("Friendly notes about {{0}}") }] }],
      ),
      // Slow enough for the live status to show the calls made so far while the model "thinks".
      { ...tools(["builder_change_validate", {}]), delayMs: 2500 },
      say("I made the title of the notes friendlier; the change is valid and ready for you to review."),
    );
    await send(page, "Make the notes title friendlier.");
    await page.getByTestId("builder-live-status").waitFor();
    await poll(async () => (await page.getByTestId("builder-live-status").isVisible()) && (await texts(page, ".tool-chip")).includes("staged a change")).toBe(true);
    expect(await page.getByTestId("builder-live-status").textContent()).toContain("Working");

    // Validation passed; the canvas marks the changed node, the JSON diff shows the lines.
    await poll(() => page.getByTestId("builder-validation").getAttribute("data-state")).toBe("valid");
    expect(await page.getByTestId("builder-change-summary").textContent()).toBe("Friendlier notes title");
    await poll(() => diffNode(page, "fill").getAttribute("class")).toContain("diff-changed");
    expect(await diffNode(page, "topic").getAttribute("class")).not.toContain("diff-");
    expect(await diffEdge(page, "e1").getAttribute("class")).not.toContain("diff-");
    expect(await texts(page, '[data-testid="builder-diff-legend"]')).toContain("1 changed");
    expect(await texts(page, ".text-diff .line-add")).toContain('"template": "Friendly notes about {{0}}"');
    expect(await texts(page, ".text-diff .line-remove")).toContain('"template": "Notes on {{0}}"');

    // The conversation has summaries only: the model's reply and what its tools did, never the documents.
    const conversation = await texts(page, '[data-testid="builder-conversation"] .conversation-list');
    expect(conversation).toContain("I made the title of the notes friendlier");
    expect(conversation).toContain("validated the change");
    expect(conversation).not.toContain("Friendly notes about");
    expect(conversation).not.toContain('"op"');

    // Nothing is stored before apply.
    expect((await weft.api("GET", "/api/workflows/notes")).body).toMatchObject({ workflow: { revision: 1 } });
    await page.getByTestId("builder-apply").click();
    await page.getByTestId("builder-applied").waitFor();
    expect(await page.getByTestId("builder-applied").textContent()).toContain("revision 2");
    const stored = await weft.storedWorkflow("notes");
    expect(stored.revision).toBe(2);
    expect(stored.nodes.find((n) => n.id === "fill")?.config.template).toBe("Friendly notes about {{0}}");

    // The editor's open tab took the new revision: it shows the change, and saving from it is not a conflict.
    await page.getByTestId("view-editor").click();
    const template = node(page, "fill").locator(".config-row textarea");
    await poll(() => template.inputValue()).toBe("Friendly notes about {{0}}");
    expect(await page.getByTestId("dirty-marker").count()).toBe(0);
    await template.fill("Edited after the Builder: {{0}}");
    await page.getByTestId("save").click();
    await poll(async () => (await weft.storedWorkflow("notes")).revision).toBe(3);
    expect(await page.locator(".dialog").count()).toBe(0);
  });

  it("previews added and removed nodes and edges, and cancelling leaves everything untouched", async () => {
    const { page } = weft;
    await openFromList(page, "drafts");
    const before = (await weft.api("GET", "/api/workflows/drafts")).body;
    await page.locator('.workflow-item[data-workflow-id="drafts"]').getByTestId("ask-builder-workflow").click();
    await poll(() => texts(page, '[data-testid="builder-target"]')).toContain("drafts");

    const shouted = {
      ...drafts,
      nodes: [...drafts.nodes, { id: "shout", type: "core:text-transform", position: { x: 480, y: 220 }, config: { case: "upper" } }],
      edges: [
        drafts.edges![0],
        { id: "e3", source: "fill", sourceHandle: "text", target: "shout", targetHandle: "text" },
        { id: "e4", source: "shout", sourceHandle: "text", target: "out", targetHandle: "value" },
      ],
    };
    llm.enqueue(tools(["builder_change_stage", { summary: "Shout the draft", operations: [{ op: "workflow.put", workflow: shouted }] }]), say("Staged: the draft is now shouted."));
    await send(page, "Make the draft upper case.");
    await poll(() => page.getByTestId("builder-validation").getAttribute("data-state")).toBe("valid");
    await poll(() => diffNode(page, "shout").getAttribute("class")).toContain("diff-added");
    expect(await diffEdge(page, "e2").getAttribute("class")).toContain("diff-removed");
    expect(await diffEdge(page, "e3").getAttribute("class")).toContain("diff-added");
    expect(await diffEdge(page, "e4").getAttribute("class")).toContain("diff-added");
    expect(await diffNode(page, "fill").getAttribute("class")).not.toContain("diff-");
    expect(await page.getByTestId("builder-apply").isEnabled()).toBe(true);

    await page.getByTestId("builder-cancel-session").click();
    await page.locator(".dialog button", { hasText: "End session" }).click();
    await page.getByTestId("builder-ended").waitFor();
    expect(await page.getByTestId("builder-input").isDisabled()).toBe(true);

    expect((await weft.api("GET", "/api/workflows/drafts")).body).toEqual(before);
    const { sessions } = await weft.read("/api/builder/sessions?targetType=workflow&targetId=drafts", BuilderSessionListSchema);
    expect(sessions).toHaveLength(1);
    expect(sessions[0].status).toBe("cancelled");
    const session = await weft.read(`/api/builder/sessions/${sessions[0].id}`, BuilderSessionDetailSchema);
    expect(session.latestChangeSet).toMatchObject({ status: "rejected", statusReason: "cancelled" });
  });

  it("keeps Apply disabled for an invalid change, lists its errors with hints, and warns by field when the stored workflow moved", async () => {
    const { page } = weft;
    await page.getByRole("button", { name: "Switch target…" }).click();
    const picker = page.getByTestId("builder-target-picker");
    await picker.locator('button[data-kind="workflow"]').click();
    await picker.getByTestId("builder-target-id").selectOption("notes");
    await picker.getByTestId("builder-start").click();
    await poll(() => texts(page, '[data-testid="builder-target"]')).toContain("workflow");

    const current = await weft.storedWorkflow("notes");
    const broken = { ...current, nodes: current.nodes.map((n) => (n.id === "fill" ? fill("Broken {{0}}", "core:text-templat") : n)) };
    // The server asks the model to repair an invalid change twice; this model cannot.
    llm.enqueue(
      tools(["builder_change_stage", { summary: "Use another template node", operations: [{ op: "workflow.put", workflow: broken }] }]),
      say("Staged."),
      say("I could not fix it."),
      say("Still not fixed."),
    );
    await send(page, "Swap the template node.");
    await poll(() => page.getByTestId("builder-validation").getAttribute("data-state")).toBe("invalid");
    expect(await texts(page, '[data-testid="builder-error"]')).toContain("UNKNOWN_NODE_TYPE");
    expect(await texts(page, '[data-testid="builder-error"]')).toContain("Fix:");
    expect(await page.getByTestId("builder-apply").isDisabled()).toBe(true);
    await poll(() => page.locator(".msg.repair_request").count()).toBe(2);
    expect((await weft.storedWorkflow("notes")).revision).toBe(current.revision);

    // A valid change, then someone saves the workflow elsewhere before the user applies it.
    llm.enqueue(tools(["builder_change_stage", { summary: "Shorter template", operations: [{ op: "node.put", workflowId: "notes", node: fill("On {{0}}") }] }]), say("Fixed: a shorter template."));
    await send(page, "Use a valid template node.");
    await poll(() => page.getByTestId("builder-validation").getAttribute("data-state")).toBe("valid");
    const saved = await weft.api("PUT", "/api/workflows/notes", { workflow: { ...current, description: "saved elsewhere" }, baseRevision: current.revision });
    expect(saved.status).toBe(200);
    await page.getByTestId("builder-apply").click();
    const warnings = page.getByTestId("builder-stale-warnings");
    await warnings.waitFor();
    expect(await warnings.locator("li").getAttribute("data-field")).toBe('workflows["notes"].revision');
    expect(await warnings.textContent()).toContain(`staged on revision ${current.revision}, stored now revision ${current.revision + 1}`);
    expect((await weft.storedWorkflow("notes")).revision).toBe(current.revision + 1);

    await page.getByTestId("builder-apply-anyway").click();
    await page.getByTestId("builder-applied").waitFor();
    const stored = await weft.storedWorkflow("notes");
    expect(stored.revision).toBe(current.revision + 2);
    expect(stored.nodes.find((n) => n.id === "fill")?.config.template).toBe("On {{0}}");

    // The session is in the address: a reload comes back to it, conversation and all.
    expect(new URL(page.url()).hash).toMatch(/^#\/builder\/bs_/);
    await page.reload();
    await poll(() => texts(page, '[data-testid="builder-target"]')).toContain("notes");
    await poll(() => texts(page, '[data-testid="builder-conversation"] .conversation-list')).toContain("Fixed: a shorter template.");
  });
});
