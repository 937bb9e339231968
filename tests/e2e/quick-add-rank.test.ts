import { describe, expect, it } from "vitest";
import { centerOf, drag, emptyCanvasPoint, handle, node } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { useWeft, type Weft } from "./support/weft.ts";

const weft = useWeft();

const options = (weft: Weft) => weft.page.locator("#quick-add-results [role=option] .quick-add-title").allTextContents();

describe("quick-add and search", () => {
  it("offers the nodes that fit a dropped string wire first, and finds nodes by synonym and port type", async () => {
    const { page } = weft;
    await weft.createWorkflow({ id: "words", name: "Words", nodes: [{ id: "txt", type: "core:const-text", position: { x: 0, y: 0 }, config: { value: "hi" } }], edges: [] });
    await page.goto(weft.url);
    await poll(() => node(page, "txt").count()).toBe(1);

    await drag(page, await centerOf(handle(page, "txt", "value", "output")), await emptyCanvasPoint(page, 0.7, 0.6));
    await poll(() => options(weft).then((o) => o.length)).toBeGreaterThan(5);
    const offered = await options(weft);
    const at = (title: string) => (offered.includes(title) ? offered.indexOf(title) : Infinity);
    for (const good of ["Trim / change case", "Regex replace"]) {
      expect(at(good)).toBeLessThan(at("Filter array"));
      expect(at(good)).toBeLessThan(at("Read file"));
    }

    const search = page.getByRole("combobox", { name: "Search node types" });
    await search.fill("uppercase");
    await poll(() => options(weft).then((o) => o[0])).toBe("Trim / change case");
    await search.fill("http");
    await poll(() => options(weft).then((o) => o[0])).toBe("HTTP request");
    await page.keyboard.press("Escape");

    // The palette searches the same way, and by port type.
    await page.locator(".sidebar-tabs button", { hasText: "Nodes" }).click();
    await page.getByRole("searchbox", { name: "Search nodes" }).fill("lowercase");
    await poll(() => page.locator(".palette-item .palette-item-title").first().textContent()).toBe("Trim / change case");
    await page.getByRole("searchbox", { name: "Search nodes" }).fill("boolean");
    await poll(() => page.locator('.palette-item[data-node-type="core:compare"]').count()).toBe(1);
  });
});
