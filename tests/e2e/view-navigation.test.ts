import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { Page, Route } from "playwright-core";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";
import { BuilderSessionListSchema, BuilderSessionStateSchema } from "../../packages/types/src/index.ts";

/** The repository's examples: the calculator agent and a few workflows to point Builder sessions at. */
const EXAMPLES = fileURLToPath(new URL("../../workflows", import.meta.url));

let sessionA: string;
let sessionB: string;
const weft = useWeft({ examplesDir: EXAMPLES }, async () => {
  const made = async (workflowId: string) => {
    const res = await weft.api("POST", "/api/builder/sessions", { target: { type: "workflow", workflowId } });
    expect(res.status).toBe(201);
    return BuilderSessionStateSchema.parse(res.body).session.id;
  };
  sessionA = await made("branch");
  sessionB = await made("text-pipeline");
});

const hash = (page: Page) => new URL(page.url()).hash;
const shownView = (page: Page) => page.locator('.topbar [data-testid^="view-"].active').getAttribute("data-testid");
const shownSession = (page: Page) => page.getByTestId("BuilderWorkbench").getAttribute("data-session");

/** Waits until the page shows `view` (and, in the Builder, `session`; "" for the picker) and its address says so. */
async function showing(page: Page, view: "editor" | "scenes" | "agents" | "builder", session?: string) {
  await poll(() => shownView(page)).toBe(`view-${view}`);
  const shown = { editor: ".main .sidebar", scenes: '[data-testid="SceneView"]', agents: '[data-testid="AgentsView"]', builder: '[data-testid="BuilderWorkbench"]' }[view];
  await poll(() => page.locator(shown).count()).toBe(1);
  if (view === "builder" && session !== undefined) await poll(() => shownSession(page)).toBe(session);
  // The editor's address names the stored workflow on its active tab (#/workflows/:id), or nothing.
  if (view === "editor") expect(hash(page)).toMatch(/^(#\/workflows\/[^/?]+)?$/);
  else expect(hash(page)).toBe(view === "builder" && session ? `#/builder/${session}` : `#/${view}`);
}

/** Holds the answers to new Builder sessions until `release` is called. */
async function holdSessionCreation(page: Page) {
  const held: Route[] = [];
  const handler = (route: Route) => {
    if (route.request().method() === "POST") held.push(route);
    else void route.continue();
  };
  await page.route("**/api/builder/sessions", handler);
  return {
    held: () => held.length,
    async release() {
      for (const route of held.splice(0)) await route.continue();
      await page.unroute("**/api/builder/sessions", handler);
    },
  };
}

describe("view navigation and the address", () => {
  it("a hash edit to another view while a Builder session is being created keeps that view once the session is there", async () => {
    const { page } = weft;
    await page.goto(`${weft.url}/#/agents`);
    await showing(page, "agents");
    const hold = await holdSessionCreation(page);
    await page.locator('.agent-item[data-agent-id="calculator"]').click();
    await page.getByTestId("agent-ask-builder").click();
    await poll(() => hold.held()).toBe(1);
    await showing(page, "builder", "");

    await page.evaluate(() => (location.hash = "#/scenes"));
    await showing(page, "scenes");
    await hold.release();
    await poll(async () => (await weft.read("/api/builder/sessions?targetType=agent&targetId=calculator", BuilderSessionListSchema)).sessions.length).toBe(1);
    // The answer is read in the page too: the Builder keeps the new session, the page stays where the user went.
    await page.getByTestId("view-builder").click();
    const created = (await weft.read("/api/builder/sessions?targetType=agent&targetId=calculator", BuilderSessionListSchema)).sessions[0].id;
    await showing(page, "builder", created);
    await page.goBack();
    await showing(page, "scenes");
  });

  it("a hash edit or Back/Forward between Builder sessions opens the session the address names", async () => {
    const { page } = weft;
    await page.goto(`${weft.url}/#/builder/${sessionA}`);
    await showing(page, "builder", sessionA);
    await page.evaluate((id) => (location.hash = `#/builder/${id}`), sessionB);
    await showing(page, "builder", sessionB);
    await page.goBack();
    await showing(page, "builder", sessionA);
    await page.goForward();
    await showing(page, "builder", sessionB);
    // An address the app does not know shows the editor, and says so.
    await page.evaluate(() => (location.hash = "#/nowhere"));
    await showing(page, "editor");
  });

  it("Back and Forward move between the views the user chose", async () => {
    const { page } = weft;
    await page.goto(weft.url);
    await showing(page, "editor");
    for (const view of ["agents", "scenes", "builder"] as const) {
      await page.getByTestId(`view-${view}`).click();
      await showing(page, view);
    }
    // Opening a session replaces the Builder's entry: Back goes to the view before it.
    await page.locator(`.builder-recent [data-session-id="${sessionA}"]`).click();
    await showing(page, "builder", sessionA);
    await page.goBack();
    await showing(page, "scenes");
    await page.goBack();
    await showing(page, "agents");
    await page.goBack();
    await showing(page, "editor");
    await page.goForward();
    await showing(page, "agents");
    await page.goForward();
    await showing(page, "scenes");
    await page.goForward();
    await showing(page, "builder", sessionA);
  });

  it("a reload stays on each view", async () => {
    const { page } = weft;
    for (const [path, view, session] of [
      ["/", "editor", undefined],
      ["/#/scenes", "scenes", undefined],
      ["/#/agents", "agents", undefined],
      ["/#/builder", "builder", ""],
      [`/#/builder/${sessionB}`, "builder", sessionB],
    ] as const) {
      await page.goto(weft.url + path);
      await showing(page, view, session);
      await page.reload();
      await showing(page, view, session);
    }
  });
});
