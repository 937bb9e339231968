import { expect } from "vitest";
import { poll } from "./poll.ts";
import type { Locator, Page } from "playwright-core";

/** What a user does on the canvas, with the mouse and keyboard (no shortcuts through the app's internals). */

export const node = (page: Page, id: string): Locator => page.locator(`.vue-flow__node[data-id="${id}"]`);

/** Whether a node's centre is inside the visible canvas. */
export async function inView(page: Page, id: string): Promise<boolean> {
  const box = await node(page, id).boundingBox();
  const pane = await page.locator(".vue-flow__pane").boundingBox();
  if (!box || !pane) return false;
  const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
  return x > pane.x && x < pane.x + pane.width && y > pane.y && y < pane.y + pane.height;
}
export const handle = (page: Page, nodeId: string, portId: string, side: "input" | "output"): Locator =>
  node(page, nodeId).locator(`.vue-flow__handle[data-handleid="${portId}"].${side === "input" ? "target" : "source"}`);

export async function centerOf(locator: Locator): Promise<{ x: number; y: number }> {
  const box = await locator.boundingBox();
  if (!box) throw new Error(`not visible: ${locator}`);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** Press at `from`, move in small steps to `to`, optionally release (a real drag, as Vue Flow and the palette expect). */
export async function drag(page: Page, from: { x: number; y: number }, to: { x: number; y: number }, options: { release?: boolean; steps?: number } = {}) {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  const steps = options.steps ?? 12;
  for (let i = 1; i <= steps; i++) await page.mouse.move(from.x + ((to.x - from.x) * i) / steps, from.y + ((to.y - from.y) * i) / steps);
  if (options.release !== false) await page.mouse.up();
}

/**
 * Shows the node palette (the sidebar may show the workflow list or the undo history) and searches it;
 * returns the entry of `type`, scrolled into view. The search box is found by its label, so a
 * search box of another sidebar tab can never be typed into instead.
 */
export async function searchPalette(page: Page, type: string): Promise<Locator> {
  await page.locator(".sidebar-tabs button", { hasText: "Nodes" }).click();
  await page.getByRole("searchbox", { name: "Search nodes" }).fill(type);
  const entry = page.locator(`.palette-item[data-node-type="${type}"]`);
  await entry.scrollIntoViewIfNeeded();
  return entry;
}

export const clearPaletteSearch = (page: Page) => page.getByRole("searchbox", { name: "Search nodes" }).fill("");

/** Drags a palette entry onto the canvas at a screen point; returns the id of the node that appeared. */
export async function dragFromPalette(page: Page, type: string, to: { x: number; y: number }): Promise<string> {
  const before = await page.locator(".vue-flow__node-weft").evaluateAll((els) => els.map((e) => e.getAttribute("data-id")));
  // As a user would: open the palette, search it, then drag the entry out of it.
  await drag(page, await centerOf(await searchPalette(page, type)), to);
  await clearPaletteSearch(page);
  await poll(async () => (await page.locator(".vue-flow__node-weft").count()) > before.length).toBe(true);
  const after = await page.locator(".vue-flow__node-weft").evaluateAll((els) => els.map((e) => e.getAttribute("data-id")));
  const added = after.filter((id) => !before.includes(id));
  expect(added).toHaveLength(1);
  return added[0] as string;
}

/** Resolves once the canvas holds still (an animated fit or "jump to node" has ended), so positions read next stay true. */
export async function viewSettled(page: Page): Promise<void> {
  let last: string | null = null;
  await poll(async () => {
    const now = (await page.locator(".vue-flow__transformationpane").getAttribute("style")) ?? "";
    const still = now === last;
    last = now;
    return still;
  }).toBe(true);
}

export async function connect(page: Page, from: [string, string], to: [string, string], options: { release?: boolean } = {}) {
  await viewSettled(page);
  await drag(page, await centerOf(handle(page, from[0], from[1], "output")), await centerOf(handle(page, to[0], to[1], "input")), options);
}

/** An empty spot of the canvas pane (for clicks that clear the selection, pastes, double-clicks). */
export async function emptyCanvasPoint(page: Page, dx = 0.85, dy = 0.2): Promise<{ x: number; y: number }> {
  const box = await page.locator(".vue-flow__pane").boundingBox();
  if (!box) throw new Error("no canvas");
  return { x: box.x + box.width * dx, y: box.y + box.height * dy };
}

/**
 * A point of the canvas clear of node `id` (whose size and place depend on how the view was framed):
 * beside it on the side with more room, at its vertical centre.
 */
export async function emptyPointBeside(page: Page, id: string): Promise<{ x: number; y: number }> {
  const pane = await page.locator(".vue-flow__pane").boundingBox();
  const box = await node(page, id).boundingBox();
  if (!pane || !box) throw new Error(`no canvas or no node ${id}`);
  const roomRight = pane.x + pane.width - (box.x + box.width);
  const roomLeft = box.x - pane.x;
  const x = roomRight >= roomLeft ? box.x + box.width + roomRight / 2 : pane.x + roomLeft / 2;
  return { x, y: Math.min(Math.max(box.y + box.height / 2, pane.y + 10), pane.y + pane.height - 10) };
}

export const edgeCount = (page: Page) => page.locator(".vue-flow__edge").count();

/** The text of every element matching `selector`, joined (does not wait for one to exist, so it suits expect.poll). */
export async function texts(page: Page, selector: string): Promise<string> {
  return (await page.locator(selector).allTextContents()).join("\n");
}

/** Selects a node and shows, in the inspector's Run tab, what it did in the run on the canvas. */
export async function inspectRun(page: Page, id: string): Promise<void> {
  await node(page, id).locator(".node-title").click();
  // The header names the node by its title; its id is the header's tooltip.
  await poll(() => page.locator(".inspector-title").getAttribute("title")).toBe(id);
  const runTab = page.locator(".inspector .segmented button", { hasText: "Run" });
  if (!(await runTab.getAttribute("class"))?.includes("active")) await runTab.click();
}

/** Opens a stored workflow from the sidebar's workflow list and waits until its tab is the active one. */
export async function openFromList(page: Page, id: string): Promise<void> {
  await page.locator(".sidebar-tabs button", { hasText: "Workflows" }).click();
  await page.locator(`.workflow-item[data-workflow-id="${id}"]`).click();
  await poll(() => page.locator(".tab.active").getAttribute("data-tab-id")).toBe(id);
}
