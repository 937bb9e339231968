import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { RunListSchema } from "../../apps/frontend/src/shared/api/schemas.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

/** The repository's examples: the built-in deliberation workflow, examples and agents. */
const EXAMPLES = fileURLToPath(new URL("../../workflows", import.meta.url));
const LONG_NAME = "Quarterly revenue reconciliation assistant for the finance team";

/** A new browser on a new installation, in the small window issue 37 names. */
const weft = useWeft({ examplesDir: EXAMPLES, home: true, viewport: { width: 1024, height: 700 } }, async () => {
  weft.page.setDefaultTimeout(30_000);
  expect((await weft.api("POST", "/api/agents", { id: "reconciler", name: LONG_NAME, deliberationWorkflowId: "agent-deliberation" })).status).toBe(201);
  expect((await weft.api("POST", "/api/users", { username: "edna", role: "editor", password: "edna's password" })).status).toBe(201);
  await weft.page.goto(weft.url);
});

const banner = () => weft.page.locator(".run-banner");

describe("Home's Run starts the run", () => {
  it("an example whose inputs all have defaults runs at once: the editor shows it running, then its result", async () => {
    const { page } = weft;
    await page.getByTestId("home").waitFor();
    await page.getByRole("button", { name: "Run Text pipeline" }).click();
    // No dialog to fill in: the run is under way in the editor, and ends.
    await poll(() => banner().getAttribute("data-run-id"), { timeout: 30_000 }).toBeTruthy();
    expect(await page.getByRole("dialog", { name: "Run inputs" }).count()).toBe(0);
    await poll(() => page.getByTestId("run-status").textContent(), { timeout: 30_000 }).toBe("completed");
    const runId = await banner().getAttribute("data-run-id");
    const stored = await weft.read("/api/runs?workflowId=text-pipeline&limit=5", RunListSchema);
    expect(stored.runs.map((r) => r.id)).toContain(runId);
    // Its result, where the user landed.
    await poll(() => page.getByTestId("run-outputs").count()).toBe(1);
    expect((await page.getByTestId("run-outputs").innerText()).length).toBeGreaterThan(0);
  });

  it("an example with a required input asks for it first, prefilled with an example, and runs on Run", async () => {
    const { page } = weft;
    await page.reload();
    await page.getByTestId("view-home").click();
    await page.getByRole("button", { name: "Run Summarize (skill)" }).click();
    const dialog = page.getByRole("dialog", { name: "Run inputs" });
    await dialog.waitFor();
    expect(await dialog.getByLabel("text", { exact: true }).inputValue()).toContain("Weft is a visual editor");
    await dialog.getByRole("button", { name: /Run/ }).click();
    await poll(() => page.getByTestId("run-status").textContent(), { timeout: 30_000 }).toBe("completed");
    expect(await page.locator(".tab.active").getAttribute("data-tab-id")).toBe("summarize-skill");
  });
});

describe("built-in workflows offer no edit action", () => {
  it("the Workflows list offers Delete on an example but not on the built-in deliberation workflow", async () => {
    const { page } = weft;
    await page.reload();
    await page.getByTestId("view-editor").click();
    await page.locator(".sidebar-tabs button", { hasText: "Workflows" }).click();
    await poll(() => page.locator('.workflow-item[data-workflow-id="agent-deliberation"]').count()).toBe(1);
    expect(await page.getByRole("button", { name: "Delete Text pipeline" }).count()).toBe(1);
    expect(await page.getByRole("button", { name: "Delete Agent deliberation (default)" }).count()).toBe(0);
    expect(await page.locator('.workflow-item[data-workflow-id="agent-deliberation"] .pill').innerText()).toBe("built in");
  });
});

describe("a long agent name at 1024 px", () => {
  it("is shown whole in the agent list: no part of it is cut off", async () => {
    const { page } = weft;
    await page.reload();
    await page.getByTestId("view-agents").click();
    const name = page.locator('[data-agent-id="reconciler"] .record-item-name');
    await name.waitFor();
    const geometry = await name.evaluate((el) => {
      const box = el.getBoundingClientRect();
      const list = el.closest("[data-testid=agent-list]")!.getBoundingClientRect();
      return { cut: el.scrollWidth - el.clientWidth, inside: box.left >= list.left && box.right <= list.right };
    });
    expect(geometry.cut).toBe(0);
    expect(geometry.inside).toBe(true);
    expect(await name.innerText()).toBe(LONG_NAME);
    // The button's accessible name carries the whole name too.
    expect(await page.getByRole("button", { name: new RegExp(LONG_NAME) }).count()).toBeGreaterThan(0);
  });
});

describe("a draft's runs stay with it when it is first saved", () => {
  it("run as a draft, then named on the first save: the saved workflow's run history shows the draft's run", async () => {
    const { page } = weft;
    await page.reload();
    await page.getByTestId("view-home").click();
    await page.getByTestId("home-new-workflow").click();
    await page.locator(".vue-flow").first().waitFor();
    const draftId = (await page.locator(".tab.active").getAttribute("data-tab-id"))!;
    await page
      .locator(".vue-flow__pane")
      .first()
      .click({ position: { x: 10, y: 10 } });
    await page.keyboard.press("/");
    await page.keyboard.type("core:const-text");
    await page.keyboard.press("Enter");
    await poll(() => page.locator(".vue-flow__node-weft").count()).toBe(1);
    await page.keyboard.press("Control+Enter");
    await poll(() => page.getByTestId("run-status").textContent(), { timeout: 30_000 }).toBe("completed");
    const runId = (await banner().getAttribute("data-run-id"))!;

    await page.keyboard.press("Control+s");
    const dialog = page.getByRole("dialog", { name: "Save workflow" });
    await dialog.waitFor();
    await page.keyboard.type("Greeting maker");
    await page.keyboard.press("Enter");
    await poll(() => page.locator('.tab.active [data-testid="dirty-marker"]').count()).toBe(0);
    // Stored under a name; the runs of the server and the editor's history both list the draft's run under it.
    const savedId = (await page.locator(".tab.active").getAttribute("data-tab-id"))!;
    expect((await weft.storedWorkflow(savedId)).name).toBe("Greeting maker");
    expect(savedId).toBe(draftId);
    expect((await weft.read(`/api/runs?workflowId=${encodeURIComponent(savedId)}`, RunListSchema)).runs.map((r) => r.id)).toContain(runId);
    await page.reload();
    await poll(() => page.locator(".tab.active").getAttribute("data-tab-id")).toBe(savedId);
    await poll(() => page.locator(`[data-testid="run-history"] [data-run-id="${runId}"]`).count(), { timeout: 15_000 }).toBe(1);
  });
});

describe("the editor follows a role an owner changes, without a reload", () => {
  /** The owner sets edna's role through the API, as the Users settings do. */
  async function setEdnasRole(role: "editor" | "viewer") {
    const users = (await weft.api("GET", "/api/users")).body as { users: { id: string; username: string }[] };
    const edna = users.users.find((u) => u.username === "edna")!;
    expect((await weft.api("PUT", `/api/users/${edna.id}`, { role })).status).toBe(200);
  }

  it("an editor made a viewer: a refused Run turns the editor read-only; made an editor again, coming back to the window opens it", async () => {
    const { page } = weft;
    await weft.context.clearCookies();
    const res = await fetch(`${weft.url}/api/auth/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "edna", password: "edna's password" }),
    });
    expect(res.status).toBe(200);
    const cookie = /^weft_session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1] ?? "";
    await weft.context.addCookies([{ name: "weft_session", value: cookie, url: weft.url, httpOnly: true, sameSite: "Strict" }]);
    await page.goto(`${weft.url}/#/workflows/text-pipeline`);
    // A hash change alone loads nothing: the reload starts the editor as edna.
    await page.reload();
    await poll(() => page.getByTestId("user-menu").getAttribute("aria-label")).toContain("edna");
    await poll(() => page.locator(".tab.active").getAttribute("data-tab-id")).toBe("text-pipeline");
    const run = page.getByTestId("run");
    await poll(() => run.isDisabled()).toBe(false);

    await setEdnasRole("viewer");
    // The open editor still offers Run; the server refuses it, and the editor reads the role again.
    await page
      .locator(".vue-flow__pane")
      .first()
      .click({ position: { x: 10, y: 10 } });
    const runsBefore = (await weft.read("/api/runs?workflowId=text-pipeline&limit=50", RunListSchema)).runs.length;
    await page.keyboard.press("Control+Enter");
    await page.getByRole("dialog", { name: "Run inputs" }).waitFor();
    await page.keyboard.press("Control+Enter");
    // Run is also disabled while the refused start is under way: wait for the role, not for the button.
    await poll(() => run.getAttribute("title"), { timeout: 15_000 }).toContain("You are a viewer");
    expect(await run.isDisabled()).toBe(true);
    expect((await weft.read("/api/runs?workflowId=text-pipeline&limit=50", RunListSchema)).runs.length).toBe(runsBefore);

    await setEdnasRole("editor");
    // Switching back to the window (its focus event) reads the role again.
    await page.evaluate(() => window.dispatchEvent(new FocusEvent("focus")));
    await poll(() => run.isDisabled(), { timeout: 15_000 }).toBe(false);
  });
});
