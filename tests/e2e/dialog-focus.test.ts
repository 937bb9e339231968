import { describe, expect, it } from "vitest";
import type { Locator, Page } from "playwright-core";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

const weft = useWeft({}, async () => {
  // Two workflows, the first with an input (so Run asks for it): two tabs, a list to delete from.
  await weft.createWorkflow({
    id: "asks",
    name: "Asks",
    nodes: [{ id: "topic", type: "core:workflow-input", position: { x: 0, y: 0 }, config: { name: "topic", portType: "string", required: true } }],
    edges: [],
  });
  await weft.createWorkflow({ id: "plain", name: "Plain", nodes: [], edges: [] });
  await weft.page.goto(weft.url);
  await weft.page.locator(".vue-flow").waitFor();
});

const focusIsIn = (dialog: Locator) => dialog.evaluate((el) => el.contains(document.activeElement));
const hasFocus = (control: Locator) => control.evaluate((el) => el === document.activeElement);

/** Opens a dialog with Enter on `opener`, checks the focus is in it and stays in it for 40 Tabs, closes it with Escape, checks the focus is back. */
async function holdsFocus(page: Page, opener: Locator, dialog: Locator) {
  await opener.focus();
  await page.keyboard.press("Enter");
  await poll(() => dialog.count()).toBe(1);
  expect(await dialog.getAttribute("aria-modal")).toBe("true");
  await poll(() => focusIsIn(dialog)).toBe(true);
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press(i % 7 === 6 ? "Shift+Tab" : "Tab");
    expect(await focusIsIn(dialog)).toBe(true);
  }
  await page.keyboard.press("Escape");
  await poll(() => dialog.count()).toBe(0);
  await poll(() => hasFocus(opener)).toBe(true);
}

describe("dialogs take the focus, keep it, close on Escape and give it back", () => {
  it("settings", async () => {
    await holdsFocus(weft.page, weft.page.getByTestId("settings"), weft.page.getByTestId("settings-dialog"));
  });

  it("the keyboard shortcuts sheet", async () => {
    await holdsFocus(weft.page, weft.page.getByRole("button", { name: "Help" }), weft.page.locator(".help-panel"));
  });

  it("the run dialog", async () => {
    const { page } = weft;
    await page.locator(".sidebar-tabs button", { hasText: "Workflows" }).click();
    await page.locator('.workflow-item[data-workflow-id="asks"] .workflow-name').click();
    await poll(() => page.locator(".tab.active").textContent()).toContain("Asks");
    await holdsFocus(page, page.getByTestId("run"), page.locator(".run-dialog"));
  });

  it("a confirmation", async () => {
    const { page } = weft;
    await page.locator(".sidebar-tabs button", { hasText: "Workflows" }).click();
    await holdsFocus(page, page.getByRole("button", { name: "Delete Plain" }), page.getByRole("alertdialog"));
    expect(await page.locator('.workflow-item[data-workflow-id="plain"]').count()).toBe(1);
  });
});

describe("the tab strip", () => {
  it("arrows move between the open workflows and select the one reached", async () => {
    const { page } = weft;
    const strip = page.getByRole("tablist", { name: "Open workflows" });
    const selected = strip.getByRole("tab", { selected: true });
    await page.locator('.workflow-item[data-workflow-id="plain"] .workflow-name').click();
    await poll(() => selected.textContent()).toContain("Plain");
    const tabs = strip.getByRole("tab");
    expect(await tabs.count()).toBeGreaterThanOrEqual(2);
    await selected.focus();
    await page.keyboard.press("Home");
    await poll(() => tabs.first().getAttribute("aria-selected")).toBe("true");
    expect(await hasFocus(tabs.first())).toBe(true);
    await page.keyboard.press("ArrowRight");
    await poll(() => hasFocus(tabs.nth(1))).toBe(true);
    expect(await tabs.nth(1).getAttribute("aria-selected")).toBe("true");
  });
});
