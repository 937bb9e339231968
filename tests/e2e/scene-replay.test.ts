import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { Page, Route } from "playwright-core";
import { texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { SCREENSHOTS, screenshotBothThemes } from "./support/screens.ts";
import { useWeft } from "./support/weft.ts";
import { SceneAnswerSchema } from "../../apps/backend/src/testing/answers.ts";

/** The repository's examples: the notice-board scene with Scribe and Herald on the demo LLM. */
const EXAMPLES = fileURLToPath(new URL("../../workflows", import.meta.url));

const weft = useWeft({ examplesDir: EXAMPLES });

const verdict = (page: Page) => page.locator('[data-testid="replay-verdict"]');
const seenPositions = (page: Page) => page.evaluate(() => JSON.parse(localStorage.getItem("weft.scenes.seen") ?? "{}") as Record<string, number>);

describe("replaying a scene session in the Scenes view", () => {
  it("runs the notice-board scene, stops it, replays it with progress and sees the same world state; an edited definition shows the differences", async () => {
    const { page } = weft;
    // Every timeline read the page makes: after the first, each asks only for what is new.
    const timelineReads: string[] = [];
    page.on("request", (r) => {
      if (r.url().includes("/timeline")) timelineReads.push(new URL(r.url()).search);
    });
    await page.goto(`${weft.url}/#/scenes`);
    await page.locator('.scene-item[data-scene-id="notice-board"]').click();
    await poll(() => page.locator('[data-testid="scene-status"]').getAttribute("data-status")).toBe("idle");
    // Nothing recorded yet: no replay.
    expect(await page.locator('[data-testid="scene-replay"]').count()).toBe(0);

    await page.locator('[data-testid="scene-start"]').click();
    await poll(() => page.locator('[data-testid="scene-status"]').getAttribute("data-status")).toBe("running");
    expect(await page.locator('[data-testid="scene-replay"]').count()).toBe(0);
    // The new session's first read is a full one (it shows the scene running); from then on each read asks only for what is new.
    await poll(() => page.locator('[data-testid="scene-timeline"] .tl-status').count()).toBe(1);
    const sent = timelineReads.length;
    await page.locator('[data-testid="chat-to"]').selectOption("scribe");
    await page.locator('[data-testid="chat-text"]').fill('Post the note "The bridge is open"');
    await page.locator('[data-testid="chat-send"]').click();
    await poll(() => page.locator('[data-testid="scene-timeline"] .tl-step').count(), { timeout: 15_000 }).toBe(4);
    await poll(() => page.locator('.agent-card[data-agent="herald"]').getAttribute("data-status")).toBe("idle");
    expect(timelineReads[0]).not.toContain("since=");
    expect(timelineReads.length).toBeGreaterThan(sent + 1);
    expect(timelineReads.slice(sent).filter((q) => !q.includes("since="))).toEqual([]);

    await page.locator('[data-testid="scene-stop"]').click();
    await poll(() => page.locator('[data-testid="scene-status"]').getAttribute("data-status")).toBe("stopped");

    // Held back at first, so the running replay shows; then it goes through to the server.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/api/scenes/notice-board/replay", async (route: Route) => {
      await held;
      await route.continue();
    });
    await page.locator('[data-testid="scene-replay"]').click();
    await poll(() => page.locator('[data-testid="side-replay"]').getAttribute("class")).toContain("active");
    const progress = page.locator('[data-testid="replay-progress"]');
    await poll(() => progress.count()).toBe(1);
    expect(await progress.textContent()).toContain("Starting the replay");
    expect(await page.locator('[data-testid="scene-replay"]').isDisabled()).toBe(true);
    if (SCREENSHOTS) await screenshotBothThemes(page, "scene-replay-running");
    release();
    await poll(() => verdict(page).getAttribute("data-matches"), { timeout: 15_000 }).toBe("true");
    expect(await verdict(page).textContent()).toMatch(/same world state/i);
    expect(await verdict(page).textContent()).toContain("Replayed 1 user message");
    expect(await progress.count()).toBe(0);
    expect(await page.locator('[data-testid="replay-differences"]').count()).toBe(0);
    await page.unroute("**/api/scenes/notice-board/replay");
    if (SCREENSHOTS) await screenshotBothThemes(page, "scene-replay-same");

    // The definition is edited after the session: the replay starts from the new initial world and ends elsewhere.
    const current = (await weft.read("/api/scenes/notice-board", SceneAnswerSchema)).scene;
    const edited = { ...current, initialWorldState: { board: { note: null, pinned: true } } };
    expect((await weft.api("PUT", "/api/scenes/notice-board", { scene: edited, baseRevision: current.revision })).status).toBe(200);
    await page.locator('[data-testid="replay-run"]').click();
    await poll(() => verdict(page).getAttribute("data-matches"), { timeout: 15_000 }).toBe("false");
    expect(await verdict(page).textContent()).toMatch(/different world state: 1 place differs/i);
    const row = page.locator('[data-testid="replay-differences"] tbody tr');
    expect(await row.count()).toBe(1);
    expect(await texts(page, '[data-testid="replay-differences"] tbody td')).toBe("board.pinned\n—\ntrue");
    if (SCREENSHOTS) await screenshotBothThemes(page, "scene-replay-different");
  });

  it("forgets what it remembered of a deleted scene", async () => {
    const { page } = weft;
    await page.goto(`${weft.url}/#/scenes`);
    await page.locator('.scene-item[data-scene-id="notice-board"]').click();
    await poll(() => page.locator('[data-testid="scene-status"]').getAttribute("data-status")).toBe("stopped");
    // Events seen of the scene's stream are remembered (to resume after a reload); the replay is still shown.
    await poll(async () => (await seenPositions(page))["notice-board"] !== undefined).toBe(true);
    await page.locator('[data-testid="side-replay"]').click();
    await poll(() => verdict(page).count()).toBe(1);

    const item = page.locator('.scene-item[data-scene-id="notice-board"]');
    await item.hover();
    await item.locator(".scene-delete").click();
    await page.locator(".dialog button.danger", { hasText: "Delete" }).click();
    await poll(() => item.count()).toBe(0);
    expect((await seenPositions(page))["notice-board"]).toBeUndefined();
    expect((await weft.api("GET", "/api/scenes/notice-board/state")).status).toBe(404);

    // Made again with the same id, the scene starts clean: no session, no old replay.
    const created = await weft.api("POST", "/api/scenes", {
      id: "notice-board",
      name: "Notice board again",
      agents: [
        { instanceId: "scribe", profileId: "scribe" },
        { instanceId: "herald", profileId: "herald" },
      ],
      initialWorldState: { board: { note: null } },
    });
    expect(created.status).toBe(201);
    await page.reload();
    await page.locator('.scene-item[data-scene-id="notice-board"]').click();
    await poll(() => page.locator('[data-testid="scene-status"]').getAttribute("data-status")).toBe("idle");
    await page.locator('[data-testid="side-replay"]').click();
    expect(await verdict(page).count()).toBe(0);
    expect(await page.locator('[data-testid="replay-run"]').isDisabled()).toBe(true);
    expect(await page.locator('[data-testid="scene-timeline"] .tl-item:not(.tl-empty)').count()).toBe(0);
  });
});
