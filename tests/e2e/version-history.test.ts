import { describe, expect, it } from "vitest";
import { VersionContentSchema, VersionPageSchema } from "../../packages/types/src/index.ts";
import { seriousInBothThemes } from "./support/axe.ts";
import { node, texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { notesWorkflow, runToEnd } from "./support/notes.ts";
import { useWeft } from "./support/weft.ts";

const weft = useWeft({ viewport: { width: 1024, height: 700 } });

describe("the Versions panel", () => {
  it("lists a workflow's versions, draws one against the canvas, and restores it as a new version", async () => {
    await weft.createWorkflow(notesWorkflow("Notes on {{0}}"));
    const first = await runToEnd(weft, "notes", { topic: "looms" });
    // Version 2: another template and a node added.
    const edited = notesWorkflow("Edited {{0}}");
    edited.nodes.push({ id: "extra", type: "core:const-text", position: { x: 0, y: 220 }, config: { value: "added later" } });
    expect((await weft.api("PUT", "/api/workflows/notes", { workflow: edited, baseRevision: 1, message: "edited the template" })).status).toBe(200);

    const { page } = weft;
    await page.goto(weft.url);
    await poll(() => page.locator(".tab.active").getAttribute("data-tab-id")).toBe("notes");
    // The run history says which version each run ran.
    await poll(() => texts(page, `[data-testid="run-history"] li[data-run-id="${first}"] [data-testid="run-version"]`)).toBe("v1");

    await page.getByRole("tab", { name: "Versions", exact: true }).click();
    const rows = page.locator('[data-testid="version-list"] li[data-version]');
    await poll(() => rows.count()).toBe(2);
    expect(await rows.first().getAttribute("data-version")).toBe("2");
    expect(await texts(page, '[data-testid="version-list"] li[data-version="2"]')).toContain("edited the template");
    expect(await page.locator('li[data-version="2"] [data-testid="version-current"]').count()).toBe(1);
    expect(await seriousInBothThemes(page)).toEqual({});

    // Compare version 1 with the canvas, by keyboard: restoring it would remove `extra` and change `fill`.
    await page.getByRole("button", { name: "Compare version 1 with the open workflow" }).focus();
    await page.keyboard.press("Enter");
    const dialog = page.locator('[data-testid="version-diff"]');
    await poll(() => texts(page, '[data-testid="version-diff-legend"]')).toContain("1 removed");
    expect(await texts(page, '[data-testid="version-diff-legend"]')).toContain("1 changed");
    await poll(() => dialog.locator(".vue-flow__node.diff-removed").count()).toBe(1);
    expect(await dialog.locator('.vue-flow__node.diff-removed[data-id="extra"]').count()).toBe(1);
    expect(await dialog.locator('.vue-flow__node.diff-changed[data-id="fill"]').count()).toBe(1);
    expect(await texts(page, '[data-testid="version-diff"] .text-diff')).toContain("Notes on {{0}}");
    const box = await dialog.boundingBox();
    expect(box && box.y >= 0 && box.y + box.height <= 700 && box.x + box.width <= 1024).toBe(true);
    expect(await seriousInBothThemes(page)).toEqual({});

    // Restore asks first; cancelling stores nothing.
    await dialog.getByRole("button", { name: "Restore version 1" }).click();
    const confirm = page.getByRole("alertdialog");
    await poll(() => confirm.count()).toBe(1);
    expect(await texts(page, '[role="alertdialog"]')).toContain("stays as version 2");
    await confirm.getByRole("button", { name: "Cancel" }).click();
    expect(VersionPageSchema.parse((await weft.api("GET", "/api/workflows/notes/versions")).body).latest).toBe(2);

    await dialog.getByRole("button", { name: "Restore version 1" }).click();
    await confirm.getByRole("button", { name: "Restore version 1" }).click();
    await poll(async () => VersionPageSchema.parse((await weft.api("GET", "/api/workflows/notes/versions")).body).latest).toBe(3);
    const [v1, v3] = await Promise.all([1, 3].map(async (n) => VersionContentSchema.parse((await weft.api("GET", `/api/workflows/notes/versions/${n}`)).body).content));
    expect(v3).toEqual(v1);
    // The tab shows the restored graph, and the list the new current version.
    await poll(() => node(page, "extra").count()).toBe(0);
    await poll(() => rows.first().getAttribute("data-version")).toBe("3");
    expect(await page.locator('li[data-version="3"] [data-testid="version-current"]').count()).toBe(1);
    expect((await weft.storedWorkflow("notes")).nodes.find((n) => n.id === "fill")?.config).toMatchObject({ template: "Notes on {{0}}" });
  });
});
