import { describe, expect, it } from "vitest";
import { clearPaletteSearch, node, searchPalette } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

const weft = useWeft();

describe("the inspector after a run", () => {
  it("opens a node added after the run on its settings, not on an empty Run tab", async () => {
    const { page } = weft;
    await weft.createWorkflow({ id: "once", name: "Once", nodes: [{ id: "txt", type: "core:const-text", position: { x: 0, y: 0 }, config: { value: "hi" } }], edges: [] });
    await page.goto(weft.url);
    await poll(() => node(page, "txt").count()).toBe(1);
    await page.locator('[data-testid="run"]').click();
    await poll(() => node(page, "txt").locator(".weft-node").getAttribute("data-status")).toBe("completed");

    await (await searchPalette(page, "core:text-transform")).click();
    await clearPaletteSearch(page);
    await poll(() => node(page, "text_transform_1").count()).toBe(1);
    const inspector = page.getByTestId("inspector");
    await poll(() => inspector.getByRole("button", { name: "Settings" }).getAttribute("aria-pressed")).toBe("true");
    expect(await inspector.textContent()).not.toContain("no part in the run");
  });
});
