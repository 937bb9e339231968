import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { WorkflowInput } from "../../packages/types/src/index.ts";
import { centerOf, dragFromPalette, node, texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";
import { WorkflowListSchema } from "../../apps/frontend/src/shared/api/schemas.ts";

let files: string;
const weft = useWeft({}, async () => {
  files = mkdtempSync(join(tmpdir(), "weft-e2e-files-"));
  await weft.createWorkflow(greeter);
});
afterAll(async () => {
  rmSync(files, { recursive: true, force: true });
});

const mod = process.platform === "darwin" ? "Meta" : "Control";

/** A skill: name → "Hi {{0}}" → greeting. */
const greeter: WorkflowInput = {
  id: "greeter",
  name: "Greeter",
  nodes: [
    { id: "in", type: "core:workflow-input", position: { x: 0, y: 0 }, config: { name: "who", portType: "string", required: true } },
    { id: "t", type: "core:text-template", position: { x: 300, y: 0 }, config: { template: "Hi {{0}}" } },
    { id: "out", type: "core:workflow-output", position: { x: 600, y: 0 }, config: { name: "greeting", portType: "string" } },
  ],
  edges: [
    { id: "e1", source: "in", sourceHandle: "value", target: "t", targetHandle: "values" },
    { id: "e2", source: "t", sourceHandle: "text", target: "out", targetHandle: "value" },
  ],
};

describe("workflows, interfaces and skills in the browser", () => {
  it("imports a workflow file, exports the draft as JSON, and warns before closing unsaved changes", async () => {
    const { page } = weft;
    await page.goto(weft.url);
    await page.locator(".sidebar-tabs button", { hasText: "Workflows" }).click();
    const file = join(files, "imported.json");
    writeFileSync(file, JSON.stringify({ ...greeter, id: "greeter", name: "Imported greeter" }));
    await page.locator('[data-testid="import-file"]').setInputFiles(file);
    // The id was taken: the server gave a fresh one, and the editor says so.
    await poll(() => texts(page, ".tab.active .tab-name")).toBe("Imported greeter");
    expect(await page.locator(".tab.active").getAttribute("data-tab-id")).not.toBe("greeter");
    expect(await texts(page, ".toast")).toContain("was taken");

    const broken = join(files, "broken.json");
    writeFileSync(broken, JSON.stringify({ id: "x", name: "x", nodes: [{ id: "a", type: "Not a type" }] }));
    await page.locator('[data-testid="import-file"]').setInputFiles(broken);
    await poll(() => texts(page, ".toast")).toContain("broken.json is not a Weft workflow: at nodes.0.type");

    await page.locator(".workflow-settings input").first().fill("Renamed before export");
    const download = page.waitForEvent("download");
    await page.locator(".topbar button", { hasText: "Export" }).click();
    const saved = join(files, "export.json");
    await (await download).saveAs(saved);
    const exported = JSON.parse(readFileSync(saved, "utf8"));
    expect(exported).toMatchObject({ name: "Renamed before export", nodes: [{ id: "in" }, { id: "t" }, { id: "out" }] });

    await page.locator(".tab.active .tab-close").click();
    await poll(() => texts(page, ".dialog h2")).toBe("Close with unsaved changes?");
    await page.locator(".dialog button", { hasText: "Cancel" }).click();
    expect(await texts(page, ".tab.active .tab-name")).toBe("Renamed before export");
    await page.locator(".tab.active .tab-close").click();
    await page.locator(".dialog button", { hasText: "Discard changes" }).click();
    await poll(() => page.locator(".tab", { hasText: "Renamed before export" }).count()).toBe(0);
  });

  it("edits the interface, picks a skill for a skill node, and turns a selection into a skill", async () => {
    const { page } = weft;
    await page.locator(".new-tab").click();
    await page.locator(".inspector button", { hasText: "Edit…" }).click();
    await page.locator(".interface-editor button", { hasText: "+ Add input" }).click();
    const name = page.locator(".interface-editor tbody input[type=text]").first();
    await name.fill("2bad");
    await poll(() => texts(page, ".interface-editor .error-text")).toContain("must start with a letter");
    await name.fill("topic");
    await poll(() => texts(page, ".interface-editor .error-text")).toBe("");
    await page.locator(".interface-editor button", { hasText: "Done" }).click();
    await poll(() => texts(page, ".iface-table")).toContain("topic");
    expect(await node(page, "workflow_input_1").locator(".config-row", { hasText: "Name" }).locator("input").inputValue()).toBe("topic");

    // A skill node takes the ports of the workflow it calls.
    const pane = (await page.locator(".vue-flow__pane").boundingBox())!;
    const skill = await dragFromPalette(page, "core:skill", { x: pane.x + 420, y: pane.y + 120 });
    await node(page, skill).locator(".skill-picker select").selectOption("greeter");
    await poll(() => node(page, skill).locator('.vue-flow__handle[data-handleid="who"].target').count()).toBe(1);
    expect(await node(page, skill).locator('.vue-flow__handle[data-handleid="greeting"].source').count()).toBe(1);

    // Wire the interface input into the skill, then make a skill out of the skill node alone.
    const from = await centerOf(node(page, "workflow_input_1").locator(".vue-flow__handle.source"));
    const to = await centerOf(node(page, skill).locator('.vue-flow__handle[data-handleid="who"].target'));
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    for (let i = 1; i <= 12; i++) await page.mouse.move(from.x + ((to.x - from.x) * i) / 12, from.y + ((to.y - from.y) * i) / 12);
    await page.mouse.up();
    await poll(() => page.locator(".vue-flow__edge").count()).toBe(1);

    await node(page, skill).locator(".node-title").click();
    await page.keyboard.press(`${mod}+Shift+g`);
    await page.locator(".prompt-input").fill("Wrapped greeter");
    await page.keyboard.press("Enter");
    await poll(() => texts(page, ".toast")).toContain('Skill "Wrapped greeter" created');
    await poll(() => node(page, skill).count()).toBe(0);
    // The new skill node took the selection's place (skill_1 was the id of the node it replaced).
    expect(await node(page, "skill_2").count()).toBe(1);
    expect(await page.locator(".vue-flow__edge").count()).toBe(1); // still fed by the interface input
    const list = (await weft.read("/api/workflows", WorkflowListSchema)).workflows;
    const made = list.find((w) => w.name === "Wrapped greeter");
    expect(made?.isSkill).toBe(true);
    const inner = await weft.storedWorkflow(made!.id);
    expect(inner.nodes.map((n) => n.type).sort()).toEqual(["core:skill", "core:workflow-input"]);

    // Collapse and undo it, from the keyboard.
    await node(page, "skill_2").locator(".node-title").click();
    await page.keyboard.press("Alt+c");
    await poll(() => node(page, "skill_2").locator(".weft-node.collapsed").count()).toBe(1);
    await page.keyboard.press(`${mod}+z`);
    await poll(() => node(page, "skill_2").locator(".weft-node.collapsed").count()).toBe(0);
  });
});
