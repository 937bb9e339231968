import { describe, expect, it } from "vitest";
import { node, texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { notesWorkflow, runToEnd } from "./support/notes.ts";
import { seriousInBothThemes } from "./support/axe.ts";
import { signInBrowser, useWeft } from "./support/weft.ts";

// Issue 37 at the size it names: everything here is checked at 1024×700.
const weft = useWeft({ viewport: { width: 1024, height: 700 } }, async () => {
  await weft.createWorkflow(notesWorkflow("Notes on {{0}}"));
  for (const [username, role] of [
    ["vic", "viewer"],
    ["edna", "editor"],
  ]) {
    expect((await weft.api("POST", "/api/users", { username, role, password: `${username}'s password` })).status).toBe(201);
  }
  expect((await weft.api("POST", "/api/agents", { id: "helper", name: "Helper", deliberationWorkflowId: "notes" })).status).toBe(201);
  expect((await weft.api("POST", "/api/scenes", { id: "desk", name: "Desk", agents: [{ instanceId: "helper", profileId: "helper" }] })).status).toBe(201);
});

/** The browser signed in as `username` (the sign-in form's request), on a fresh editor. */
async function signInAs(username: string) {
  await weft.context.clearCookies();
  const res = await fetch(`${weft.url}/api/auth/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username, password: `${username}'s password` }),
  });
  const cookie = /^weft_session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1];
  expect(res.status, await res.clone().text()).toBe(200);
  await weft.context.addCookies([{ name: "weft_session", value: cookie ?? "", url: weft.url, httpOnly: true, sameSite: "Strict" }]);
  // A fresh page state: no remembered tabs or runs of the previous user.
  await weft.page.goto(weft.url);
  await weft.page.evaluate(() => localStorage.clear());
  await weft.page.goto(weft.url);
  await poll(() => weft.page.getByTestId("user-menu").getAttribute("aria-label")).toContain(username);
}

const activeTab = () => weft.page.locator(".tab.active").getAttribute("data-tab-id");
const errorToasts = () => weft.page.locator(".toast.error").count();

describe("a viewer is shown what they may do, read-only", () => {
  it("node fields are read-only with the reason, and keys on the canvas leave no unsaved dot", async () => {
    const { page } = weft;
    await signInAs("vic");
    await poll(() => activeTab()).toBe("notes");
    await node(page, "fill").locator(".node-title").click();
    const inspector = page.locator(".inspector");
    await poll(() => inspector.getByTestId("read-only-reason").count()).toBe(1);
    expect(await inspector.getByTestId("read-only-reason").innerText()).toContain("You are a viewer");
    const fields = inspector.locator(".node-settings input, .node-settings textarea, .node-settings select");
    expect(await fields.count()).toBeGreaterThan(1);
    for (const field of await fields.all()) expect(await field.isDisabled()).toBe(true);
    const inline = node(page, "fill").locator("textarea");
    expect(await inline.first().isDisabled()).toBe(true);

    // What a keyboard user might press on a selected node: delete it, type, paste. Nothing changes.
    await node(page, "fill").locator(".node-title").click();
    await page.keyboard.press("Delete");
    await page.keyboard.type("abc");
    await page.keyboard.press("Control+d");
    await page.keyboard.press("Control+z");
    expect(await node(page, "fill").count()).toBe(1);
    expect(await page.getByTestId("dirty-marker").count()).toBe(0);
    expect((await weft.storedWorkflow("notes")).nodes.map((n) => n.id)).toEqual(["topic", "fill", "out"]);
    // The workflow list offers no New, Import or Delete.
    await page.locator(".sidebar-tabs button", { hasText: "Workflows" }).click();
    await poll(() => page.locator(".workflow-item").count()).toBe(1);
    expect(await page.getByRole("button", { name: "Delete Notes" }).count()).toBe(0);
  });

  it("opening Settings shows only what a viewer may read, without an error", async () => {
    const { page } = weft;
    await page.getByTestId("settings").click();
    const dialog = page.getByTestId("settings-dialog");
    // The profiles are read: the demo profile is listed, read-only.
    await poll(() => dialog.locator(".profile-list li").count()).toBeGreaterThan(0);
    expect(await dialog.getByTestId("llm-read-only").innerText()).toBe("Only an owner can change LLM profiles; you see them read-only.");
    expect(await dialog.getByTestId("save-profile").count()).toBe(0);
    expect(await dialog.getByTestId("new-profile").count()).toBe(0);
    expect(await dialog.locator("#lp-name").isDisabled()).toBe(true);
    // A viewer reads the LLM profiles and their own usage; the rest is for editors and owners.
    expect(await dialog.locator('[role="tab"]').allInnerTexts()).toEqual(["LLM profiles", "Usage"]);
    expect(await dialog.locator('[role="alert"], .error-text').count()).toBe(0);
    expect(await errorToasts()).toBe(0);
    expect(await seriousInBothThemes(page)).toEqual({});
    await page.keyboard.press("Escape");
    await poll(() => dialog.count()).toBe(0);
  });

  it("the agent profile is read-only and its chat closed, with the reason", async () => {
    const { page } = weft;
    await page.getByTestId("view-agents").click();
    await page
      .getByRole("button", { name: /Helper/ })
      .first()
      .click();
    const input = page.getByTestId("chat-input");
    await poll(() => input.getAttribute("placeholder")).toBe("You are a viewer: ask an owner for the editor role to talk to agents.");
    expect(await input.isDisabled()).toBe(true);
    // The profile itself: read-only, nothing to save.
    expect(await page.getByTestId("agent-name").isDisabled()).toBe(true);
    expect(await page.getByTestId("agent-save").count()).toBe(0);
    expect(await page.getByTestId("agent-read-only").innerText()).toBe("You are a viewer: ask an owner for the editor role to change agents.");
    expect(await errorToasts()).toBe(0);
    expect(await seriousInBothThemes(page)).toEqual({});
    await page.getByTestId("view-editor").click();
  });

  it("the Scenes view's controls and the Builder's target picker are disabled, with the reason", async () => {
    const { page } = weft;
    await page.getByTestId("view-scenes").click();
    await poll(() => page.locator('[data-scene-id="desk"]').count()).toBe(1);
    const newScene = page.getByTestId("scene-new");
    expect(await newScene.isDisabled()).toBe(true);
    expect(await newScene.getAttribute("title")).toBe("You are a viewer: ask an owner for the editor role to create scenes.");
    expect(await page.getByTestId("scenes-read-only").innerText()).toBe("You are a viewer: ask an owner for the editor role to create, run or delete scenes.");
    expect(await page.getByRole("button", { name: "Delete Desk" }).count()).toBe(0);
    await page.locator('[data-scene-id="desk"] .row-main').click();
    const start = page.getByTestId("scene-start");
    await poll(() => start.count()).toBe(1);
    expect(await start.isDisabled()).toBe(true);
    expect(await page.getByTestId("scene-read-only").innerText()).toBe("You are a viewer: ask an owner for the editor role to start, pause, stop or replay scenes.");
    expect(await page.getByTestId("scene-status").getAttribute("data-status")).not.toBe("running");
    expect(await errorToasts()).toBe(0);
    expect(await seriousInBothThemes(page)).toEqual({});

    await page.getByTestId("view-builder").click();
    const picker = page.getByTestId("builder-target-picker");
    await poll(() => picker.count()).toBe(1);
    expect(await picker.getByTestId("builder-read-only").innerText()).toBe("You are a viewer: ask an owner for the editor role to start Builder sessions; you can open recent ones to read.");
    expect(await picker.getByTestId("builder-start").isDisabled()).toBe(true);
    expect(await picker.getByTestId("builder-target-id").isDisabled()).toBe(true);
    for (const kind of await picker.locator("[data-kind]").all()) expect(await kind.isDisabled()).toBe(true);
    expect(await errorToasts()).toBe(0);
    expect(await seriousInBothThemes(page)).toEqual({});
    await page.getByTestId("view-editor").click();
  });
});

describe("an editor refused by the server reads a sentence", () => {
  it("a save after the owner made them a viewer is refused in words, naming no route", async () => {
    const { page } = weft;
    await signInAs("edna");
    await poll(() => activeTab()).toBe("notes");
    const users = (await weft.api("GET", "/api/users")).body as { users: { id: string; username: string }[] };
    const edna = users.users.find((u) => u.username === "edna");
    // Her page was loaded as an editor: it still offers Save when the role changes behind it.
    await node(page, "fill").locator(".node-title").click();
    await page.locator(".inspector").getByRole("textbox", { name: "Label" }).fill("Shout");
    await poll(() => page.getByTestId("dirty-marker").count()).toBe(1);
    expect((await weft.api("PUT", `/api/users/${edna?.id}`, { role: "viewer" })).status).toBe(200);
    await page.getByTestId("save").click();
    const toast = page.locator(".toast.error");
    await poll(() => toast.count()).toBe(1);
    const message = await toast.innerText();
    expect(message).toContain("Only editors and owners can change workflows.");
    expect(message).toContain("You (edna) are a viewer");
    expect(message).not.toMatch(/\/api\/|PUT |needs the/);
    expect(await toast.getAttribute("data-code")).toBe("FORBIDDEN");
    await toast.getByRole("button", { name: "Dismiss" }).click();
    expect((await weft.api("PUT", `/api/users/${edna?.id}`, { role: "editor" })).status).toBe(200);
  });
});

describe("the side panel's Runs tab and undo history", () => {
  it("lists a run with its workflow, opens it by keyboard read-only with a banner, and opens the workflow from there", async () => {
    const { page } = weft;
    const runId = await runToEnd(weft, "notes", { topic: "looms" });
    await weft.context.clearCookies();
    await signInBrowser(weft.context, weft.server);
    await page.goto(weft.url);
    await page.evaluate(() => localStorage.clear());
    await page.goto(weft.url);
    await poll(() => activeTab()).toBe("notes");

    const runsTab = page.locator(".sidebar-tabs button", { hasText: "Runs" });
    await runsTab.click();
    const row = page.locator(`[data-testid="recent-runs"] li[data-run-id="${runId}"]`);
    await poll(() => row.count()).toBe(1);
    expect(await row.innerText()).toMatch(/completed[\s\S]*Notes/);
    // Every sidebar tab is on screen at 1024×700.
    const sidebar = await page.locator(".sidebar").boundingBox();
    const rows = new Set<number>();
    for (const tab of await page.locator(".sidebar-tabs button").all()) {
      const box = await tab.boundingBox();
      expect(box && sidebar && box.x + box.width <= sidebar.x + sidebar.width + 1).toBe(true);
      if (box) rows.add(Math.round(box.y));
    }
    // In at most two rows: the list below them keeps its height.
    expect(rows.size).toBeLessThanOrEqual(2);
    expect(await seriousInBothThemes(page)).toEqual({});

    await row.getByRole("button").focus();
    await page.keyboard.press("Enter");
    await poll(() => activeTab()).toBe(`run:${runId}`);
    const banner = page.getByTestId("readonly-banner");
    await poll(() => banner.count()).toBe(1);
    expect(await texts(page, '[data-testid="readonly-banner"]')).toMatch(/^Read-only: this is run \S+ of Notes, version \d+, shown as it ran/);
    await poll(() => node(page, "fill").locator(".weft-node").getAttribute("data-status")).toBe("completed");
    await banner.getByRole("button", { name: "Open the workflow" }).focus();
    await page.keyboard.press("Enter");
    await poll(() => activeTab()).toBe("notes");
    expect(await banner.count()).toBe(0);
  });

  it("names an edit in the undo history as the node shows it", async () => {
    const { page } = weft;
    await node(page, "topic").locator(".node-title").click();
    await page.locator(".inspector").getByRole("combobox", { name: "Port type" }).selectOption("number");
    await page.locator(".sidebar-tabs button", { hasText: "Undo history" }).click();
    const panel = page.getByTestId("history-panel");
    await poll(() => texts(page, '[data-testid="history-panel"] .history-list')).toContain("Changed the port type of Workflow input");
    expect(await panel.innerText()).not.toContain("portType");
  });
});
