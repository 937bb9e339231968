import { describe, expect, it } from "vitest";
import type { WorkflowInput } from "../../packages/types/src/index.ts";
import { centerOf, drag, emptyCanvasPoint, handle, node, texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

const weft = useWeft();

const shout: WorkflowInput = {
  id: "shout",
  name: "Shout",
  nodes: [
    { id: "in", type: "core:workflow-input", config: { name: "text", portType: "string", required: true } },
    { id: "up", type: "core:text-transform", config: { case: "upper" } },
    { id: "out", type: "core:workflow-output", config: { name: "loud", portType: "string" } },
  ],
  edges: [
    { id: "e1", source: "in", sourceHandle: "value", target: "up", targetHandle: "text" },
    { id: "e2", source: "up", sourceHandle: "text", target: "out", targetHandle: "value" },
  ],
};

const caller: WorkflowInput = {
  id: "caller",
  name: "Caller",
  nodes: [
    {
      id: "call_shout",
      type: "core:skill",
      config: { workflowId: "shout" },
      inputs: { text: "hi" },
      ports: { inputs: [{ id: "text", type: "string", required: true, multi: false }], outputs: [{ id: "loud", type: "string", required: false, multi: false }] },
    },
  ],
  edges: [],
};

describe("skills as nodes", () => {
  it("finds a skill by name, titles and ports the node after it, opens it, warns before deleting it and flags it missing", async () => {
    const { page } = weft;
    await weft.createWorkflow(shout);
    await weft.createWorkflow(caller);
    await page.goto(weft.url);
    // The first workflow by name opens; its skill node carries the skill's name, not "Skill".
    await poll(() => node(page, "call_shout").locator(".node-title").textContent()).toBe("Shout");

    // The palette lists the skill by name, with its interface.
    await page.locator(".sidebar-tabs button", { hasText: "Nodes" }).click();
    await page.getByRole("searchbox", { name: "Search nodes" }).fill("Shout");
    const entry = page.locator('.palette-item[data-node-type="skill:shout"]');
    await expect(entry.getAttribute("title")).resolves.toContain("takes text (string) → gives loud (string)");
    await drag(page, await centerOf(entry), await emptyCanvasPoint(page, 0.6, 0.7));
    await poll(() => node(page, "skill_1").locator(".node-title").textContent()).toBe("Shout");
    expect(await handle(page, "skill_1", "text", "input").count()).toBe(1);
    expect(await handle(page, "skill_1", "loud", "output").count()).toBe(1);
    await page.getByRole("searchbox", { name: "Search nodes" }).fill("");

    // Quick-add finds it too.
    const spot = await emptyCanvasPoint(page);
    await page.mouse.click(spot.x, spot.y);
    await page.keyboard.press("/");
    await page.getByRole("combobox", { name: "Search node types" }).fill("shout");
    await poll(() => texts(page, "#quick-add-results [role=option]")).toContain("Shout");
    await page.keyboard.press("Escape");

    // Ctrl+click on the node opens the skill; so does its "Open skill" button.
    await node(page, "call_shout")
      .locator(".node-title")
      .click({ modifiers: ["Control"] });
    await poll(() => page.locator(".tab.active").textContent()).toContain("Shout");
    await page.locator(".tab", { hasText: "Caller" }).click();
    await node(page, "call_shout").getByRole("button", { name: "Open skill Shout" }).click();
    await poll(() => page.locator(".tab.active").textContent()).toContain("Shout");
    await page.locator(".tab", { hasText: "Caller" }).click();

    // Deleting it says who uses it.
    await page.locator(".sidebar-tabs button", { hasText: "Workflows" }).click();
    await page.getByRole("button", { name: "Delete Shout" }).click();
    const dialog = page.getByRole("alertdialog", { name: "Delete “Shout”?" });
    await poll(() => dialog.textContent()).toContain("Used by 1 workflow");
    expect(await dialog.locator("li").allTextContents()).toEqual(["Caller"]);
    await dialog.getByRole("button", { name: "Delete" }).click();
    await poll(() => page.locator('.workflow-item[data-workflow-id="shout"]').count()).toBe(0);

    // Validation now flags the node that calls it.
    await page.locator(".vue-flow__pane").click({ position: { x: 20, y: 20 } });
    await page.getByRole("button", { name: "Validate" }).click();
    await poll(() => texts(page, `.vue-flow__node[data-id="call_shout"] .node-issues`)).toContain("calls a skill that no longer exists");
    expect(await page.getByText("No problems found.").count()).toBe(0);
  });
});
