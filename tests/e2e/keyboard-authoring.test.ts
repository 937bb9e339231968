import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { node } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

const weft = useWeft();

/** What has the keyboard focus: a node's id, or a control's accessible name. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return { nodeId: el?.classList.contains("vue-flow__node") ? (el.dataset.id ?? null) : null, label: el?.getAttribute("aria-label") ?? el?.textContent?.trim() ?? "" };
  });

/** Presses Tab until the focused control has the accessible name `label`. */
async function tabTo(page: Page, label: string | RegExp) {
  for (let i = 0; i < 30; i++) {
    const { label: now } = await focused(page);
    if (typeof label === "string" ? now === label : label.test(now)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached ${label}`);
}

/** Quick-add (`/`) by exact type; returns the id of the new node, which has the focus. */
async function addByKeyboard(page: Page, type: string): Promise<string> {
  const before = await page.locator(".vue-flow__node-weft").count();
  await page.keyboard.press("/");
  await poll(() => focused(page).then((f) => f.label)).toBe("Search node types");
  await page.keyboard.type(type);
  await page.keyboard.press("Enter");
  await poll(() => page.locator(".vue-flow__node-weft").count()).toBe(before + 1);
  await poll(() => focused(page).then((f) => f.nodeId)).toBeTruthy();
  const id = (await focused(page)).nodeId ?? "";
  await poll(() => node(page, id).getAttribute("class")).toContain("selected");
  return id;
}

/** A node's position in flow units, as Vue Flow draws it. */
const positionOf = (page: Page, id: string) =>
  node(page, id).evaluate((el) => {
    const m = /translate\(([-\d.]+)px, ?([-\d.]+)px\)/.exec((el as HTMLElement).style.transform);
    return { x: Number(m?.[1]), y: Number(m?.[2]) };
  });

describe("keyboard-only authoring", () => {
  it("adds three nodes, each wired to the one selected as it is added, edits them in the inspector, runs, moves and deletes: no mouse event at all", async () => {
    const { page } = weft;
    await page.goto(weft.url, { timeout: 60_000 });
    await page.locator(".vue-flow").waitFor();
    await page.evaluate(() => {
      const seen = { count: 0 };
      (window as unknown as { pointerSeen: typeof seen }).pointerSeen = seen;
      for (const type of ["pointerdown", "pointerup", "mousedown", "mouseup", "mousemove", "wheel", "dblclick", "contextmenu"]) window.addEventListener(type, () => seen.count++, true);
    });

    // 1. A text node, its text typed in the inspector (Enter on the selected node), Escape back to it.
    const text = await addByKeyboard(page, "core:const-text");
    expect(await node(page, text).getAttribute("aria-label")).toBe("Text (core:const-text)");
    await page.keyboard.press("Enter");
    await tabTo(page, "Text");
    await page.keyboard.type("hello weft");
    await page.keyboard.press("Escape");
    await poll(() => focused(page).then((f) => f.nodeId)).toBe(text);

    // 2. Trim / change case, placed right of the selected text node and fed by it (quick-add on a selected node wires it), set to upper case.
    const trim = await addByKeyboard(page, "core:text-transform");
    const [textAt, trimAt] = [await positionOf(page, text), await positionOf(page, trim)];
    expect(trimAt.x).toBeGreaterThan(textAt.x + 100);
    expect(trimAt.y).toBe(textAt.y);
    await poll(() => page.locator(".vue-flow__edge").count()).toBe(1);
    await page.keyboard.press("Enter");
    await tabTo(page, "Case");
    await page.keyboard.press("u");
    await poll(() => page.evaluate(() => (document.activeElement as HTMLSelectElement).value)).toBe("upper");
    await page.keyboard.press("Escape");
    await poll(() => focused(page).then((f) => f.nodeId)).toBe(trim);

    // 3. A preview, wired to the selected trim node as it is added (Connect… by keyboard: quick-add-wiring.test.ts).
    const preview = await addByKeyboard(page, "core:preview");
    await poll(() => page.locator(".vue-flow__edge").count()).toBe(2);

    // Run (Ctrl+Enter): the preview shows the upper-cased text; the live region says how it ended.
    await page.keyboard.press("Control+Enter");
    await poll(() => node(page, preview).locator(".node-run").textContent(), { timeout: 15_000 }).toContain("HELLO WEFT");
    await poll(() => page.getByTestId("run-announcer").textContent()).toMatch(/^Run completed/);

    // Arrows move the selected node (Shift: bigger steps), as one undo step.
    await page.keyboard.press("Escape");
    await poll(() => node(page, preview).getAttribute("class")).not.toContain("selected");
    const before = await positionOf(page, preview);
    await page.keyboard.press("Enter");
    await poll(() => node(page, preview).getAttribute("class")).toContain("selected");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Shift+ArrowDown");
    await poll(() => positionOf(page, preview)).toEqual({ x: before.x, y: before.y + 60 });
    await page.keyboard.press("Control+z");
    await poll(() => positionOf(page, preview)).toEqual(before);

    // An unselected node: arrows walk the focus to the nearest node that way.
    await page.keyboard.press("Escape");
    await poll(() => node(page, preview).getAttribute("class")).not.toContain("selected");
    await page.keyboard.press("ArrowLeft");
    await poll(() => focused(page).then((f) => f.nodeId)).toBe(trim);
    await page.keyboard.press("ArrowRight");
    await poll(() => focused(page).then((f) => f.nodeId)).toBe(preview);

    // Delete removes the selected node.
    await page.keyboard.press("Space");
    await poll(() => node(page, preview).getAttribute("class")).toContain("selected");
    await page.keyboard.press("Delete");
    await poll(() => page.locator(".vue-flow__node-weft").count()).toBe(2);

    expect(await page.evaluate(() => (window as unknown as { pointerSeen: { count: number } }).pointerSeen.count)).toBe(0);
  });
});
