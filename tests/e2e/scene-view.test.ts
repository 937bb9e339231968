import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { startScriptedLlmServer, type ScriptedLlmServer } from "../../packages/agent-runtime/src/index.ts";
import { texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { addScriptedAgent } from "./support/scripted-agent.ts";
import { SCREENSHOTS, screenshotBothThemes } from "./support/screens.ts";
import { useWeft } from "./support/weft.ts";
import { SceneStateViewSchema, SceneTimelineSchema } from "../../packages/types/src/index.ts";
import { SceneAnswerSchema } from "../../apps/backend/src/testing/answers.ts";

/** The repository's examples: the notice-board scene, its agents Scribe and Herald, their skill and deliberation workflow. */
const EXAMPLES = fileURLToPath(new URL("../../workflows", import.meta.url));

let llm: ScriptedLlmServer;
const weft = useWeft({ examplesDir: EXAMPLES }, async () => {
  // Lets a test cut the page's WebSocket and keep it from reconnecting for a while, as a network outage would.
  await weft.context.addInitScript(() => {
    const w = window as unknown as { WebSocket: typeof WebSocket; blockSockets?: boolean; sockets: WebSocket[] };
    const Native = w.WebSocket;
    w.sockets = [];
    w.WebSocket = class extends Native {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(w.blockSockets ? "ws://127.0.0.1:9/" : url, protocols);
        w.sockets.push(this);
      }
    };
  });
  // An agent that asks the user a question, then writes the answer into the world and says so.
  llm = await startScriptedLlmServer({
    turns: [
      { kind: "text", chunks: ["I need to know.\n<ACTION>\n  <ask_user>\n    <question>Which city?</question>\n  </ask_user>\n</ACTION>"] },
      { kind: "text", chunks: ["<ACTION>\n  <scene_world_set>\n    <path>city</path>\n    <value>Oslo</value>\n  </scene_world_set>\n</ACTION>"] },
      { kind: "text", chunks: ["Noted: Oslo."] },
    ],
  });
  await addScriptedAgent(weft, llm, { id: "asker", name: "Asker", tools: ["scene:world-set"] });
  expect((await weft.api("POST", "/api/scenes", { id: "asking", name: "Asking", agents: [{ instanceId: "asker", profileId: "asker" }] })).status).toBe(201);
});
afterAll(async () => {
  await llm?.stop();
});

/** The rendered text of each match (with the spaces and line breaks a reader sees), joined by lines. */
const shown = async (page: Page, selector: string) => (await page.locator(selector).evaluateAll((els) => els.map((e) => (e as HTMLElement).innerText))).join("\n");
const card = (page: Page, instanceId: string) => page.locator(`.agent-card[data-agent="${instanceId}"]`);
const agentStatus = (page: Page, instanceId: string) => card(page, instanceId).getAttribute("data-status");

/** Records every status each agent card shows, as the page renders it (a deliberation may last a few milliseconds). */
async function recordStatuses(page: Page) {
  await page.evaluate(() => {
    const seen: Record<string, string[]> = {};
    const note = (el: Element) => {
      const id = el.getAttribute("data-agent");
      const status = el.getAttribute("data-status");
      if (!id || !status) return;
      const list = (seen[id] ??= []);
      if (list.at(-1) !== status) list.push(status);
    };
    document.querySelectorAll(".agent-card").forEach(note);
    new MutationObserver((records) => {
      for (const r of records) {
        if (r.type === "attributes" && r.target instanceof Element && r.target.classList.contains("agent-card")) note(r.target);
        r.addedNodes.forEach((n) => n instanceof Element && n.querySelectorAll(".agent-card").forEach(note));
      }
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-status"] });
    (window as unknown as { seenStatuses: typeof seen }).seenStatuses = seen;
  });
}
const seenStatuses = (page: Page) => page.evaluate(() => (window as unknown as { seenStatuses: Record<string, string[]> }).seenStatuses);

async function openScene(page: Page, id: string) {
  await page.locator(`.scene-item[data-scene-id="${id}"]`).click();
  await poll(() => page.locator(".scene-item.active").getAttribute("data-scene-id")).toBe(id);
  await poll(() => page.locator('[data-testid="scene-status"]').count()).toBe(1);
}

async function say(page: Page, to: string, text: string) {
  await page.locator('[data-testid="chat-to"]').selectOption(to);
  await page.locator('[data-testid="chat-text"]').fill(text);
  await page.locator('[data-testid="chat-send"]').click();
  await poll(() => page.locator('[data-testid="chat-text"]').inputValue()).toBe("");
}

describe("the Scenes view", () => {
  it("runs the notice-board scene live: agents' statuses, timeline, world state, traces, chat, reload, reconnect, the debugger", async () => {
    const { page } = weft;
    // The first load parses the whole editor: slower than the default limit when the machine is busy.
    await page.goto(weft.url, { timeout: 30_000 });
    await page.locator('[data-testid="view-scenes"]').click();
    await poll(() => page.locator('[data-testid="SceneView"]').count()).toBe(1);
    expect(new URL(page.url()).hash).toBe("#/scenes");
    await openScene(page, "notice-board");
    // The description (with its "Try: …") is shown whole, and the budget says what it counts.
    const description = page.locator('[data-testid="scene-description"]');
    expect(await description.innerText()).toContain('Try: start it and send Scribe: Post the note "The bridge is open".');
    expect(await description.evaluate((el) => el.scrollWidth <= el.clientWidth && el.scrollHeight <= el.clientHeight + 1)).toBe(true);
    expect(await page.locator('[data-testid="scene-budget"]').innerText()).toMatch(/^0 of 20 agent-to-agent deliberations$/);
    await poll(() => texts(page, '[data-testid="scene-agents"] .agent-card strong')).toBe("scribe\nherald");
    expect(await page.locator('[data-testid="chat-text"]').isDisabled()).toBe(true);

    await page.locator('[data-testid="scene-start"]').click();
    await poll(() => page.locator('[data-testid="scene-status"]').getAttribute("data-status")).toBe("running");
    await recordStatuses(page);

    await say(page, "scribe", 'Post the note "The bridge is open"');
    // Scribe posts the note; the world.note-posted event wakes Herald, who reads the world and answers.
    await poll(() => texts(page, '[data-testid="scene-world"]'), { timeout: 60_000 }).toContain('"The bridge is open"');
    const timeline = '[data-testid="scene-timeline"]';
    await poll(() => page.locator(`${timeline} .tl-step`).count(), { timeout: 60_000 }).toBe(4);
    await poll(() => agentStatus(page, "herald")).toBe("idle");
    expect(await agentStatus(page, "scribe")).toBe("idle");
    const seen = await seenStatuses(page);
    expect(seen.scribe).toEqual(["idle", "deliberating", "idle"]);
    expect(seen.herald).toEqual(["idle", "deliberating", "idle"]);

    const lines = await shown(page, `${timeline} .tl-item`);
    expect(lines).toContain("You → scribe\nPost the note");
    expect(lines).toContain('scribe published world.note-posted "The bridge is open"');
    expect(lines).toContain('scribe set board.note null → "The bridge is open"');
    // Scribe's skill call comes before the change it made; the agents' own steps in order.
    expect(lines.indexOf("scribe · step 1")).toBeLessThan(lines.indexOf("scribe set board.note"));
    expect(lines.indexOf("scribe set board.note")).toBeLessThan(lines.indexOf("herald · step 1"));
    expect(lines.indexOf("herald · step 1")).toBeLessThan(lines.indexOf("herald · step 2"));
    expect(lines.indexOf("scribe · step 1")).toBeLessThan(lines.indexOf("scribe · step 2"));
    // The world's history: the path, who changed it, before and after.
    expect(await shown(page, '[data-testid="world-changes"] li')).toMatch(/board\.note\s+scribe · .*\n.*null → "The bridge is open"/);

    // Herald's trace: the step's raw output, the parsed action, the Observation given back.
    await card(page, "herald").locator('[data-testid="agent-trace"]').click();
    const first = page.locator('[data-testid="agent-trace-steps"][data-agent="herald"] [data-testid="trace-step"][data-step="1"]');
    await poll(() => first.count()).toBe(1);
    expect(await first.locator('[data-testid="trace-output"]').textContent()).toContain("<ACTION>");
    expect(await first.locator('[data-testid="trace-parsed"]').textContent()).toContain("scene_world_get");
    expect(await first.locator('[data-testid="trace-observation"]').textContent()).toMatch(/Observation: .*The bridge is open/);

    // A message to everyone: each agent answers it in the timeline.
    await say(page, "all", "Good morning");
    await poll(() => texts(page, `${timeline} .tl-item`), { timeout: 60_000 }).toContain("You → all agents");
    await poll(async () => await page.locator(`${timeline} [data-testid="timeline-reply"]`, { hasText: 'You said: "Good morning"' }).count(), { timeout: 60_000 }).toBe(2);

    if (SCREENSHOTS) {
      await screenshotBothThemes(page, "scene-view-trace");
      await page.locator('[data-testid="side-world"]').click();
      await screenshotBothThemes(page, "scene-view-world");
    }

    // After a reload the view comes back as it was and goes on live from where it stood.
    await page.reload({ timeout: 30_000 });
    await poll(() => page.locator(".scene-item.active").getAttribute("data-scene-id")).toBe("notice-board");
    await poll(() => page.locator(`${timeline} .tl-step`).count()).toBe(6);
    await say(page, "scribe", 'Post the note "Ferry at noon"');
    await poll(() => texts(page, '[data-testid="scene-world"]'), { timeout: 60_000 }).toContain('"Ferry at noon"');
    await poll(() => shown(page, '[data-testid="world-changes"] li'), { timeout: 60_000 }).toContain('"The bridge is open" → "Ferry at noon"');

    // The connection drops: what happens meanwhile shows once it is back.
    await page.evaluate(() => {
      const w = window as unknown as { blockSockets: boolean; sockets: WebSocket[] };
      w.blockSockets = true;
      for (const socket of w.sockets) socket.close();
    });
    await poll(() => page.locator('[data-testid="scene-reconnecting"]').count()).toBe(1);
    expect((await weft.api("POST", "/api/scenes/notice-board/messages", { to: "scribe", text: 'Post the note "Market on Sunday"' })).status).toBe(202);
    await poll(async () => (await weft.read("/api/scenes/notice-board/state", SceneStateViewSchema)).world, { timeout: 60_000 }).toMatchObject({ board: { note: "Market on Sunday" } });
    await page.evaluate(() => ((window as unknown as { blockSockets: boolean }).blockSockets = false));
    await poll(() => texts(page, '[data-testid="scene-world"]'), { timeout: 60_000 }).toContain('"Market on Sunday"');
    await poll(() => page.locator('[data-testid="scene-reconnecting"]').count()).toBe(0);
    await poll(() => page.locator(`${timeline} .tl-user`, { hasText: 'Post the note "Market on Sunday"' }).count()).toBe(1);

    // From the trace into the debugger: the deliberation run as it ran, its nodes' statuses on the canvas.
    const { steps } = await weft.read("/api/scenes/notice-board/timeline", SceneTimelineSchema);
    const runId = steps.find((s) => s.instanceId === "herald" && s.trace.step === 1)?.trace.deliberation.runId;
    expect(runId).toBeTruthy();
    await card(page, "herald").locator('[data-testid="agent-trace"]').click();
    await page.locator('[data-testid="agent-trace-steps"] [data-testid="trace-step"][data-step="1"] [data-testid="open-deliberation-run"]').click();
    await poll(() => page.locator('[data-testid="view-editor"]').getAttribute("class")).toContain("active");
    await poll(() => page.locator(".run-banner").getAttribute("data-run-id")).toBe(runId);
    await poll(() => page.locator('.weft-node[data-status="completed"]').count()).toBeGreaterThan(1);
    expect(await page.locator('.weft-node[data-status="failed"]').count()).toBe(0);

    await page.locator('[data-testid="view-scenes"]').click();
    await page.locator('[data-testid="scene-stop"]').click();
    await poll(() => page.locator('[data-testid="scene-status"]').getAttribute("data-status")).toBe("stopped");
    expect(await page.locator('[data-testid="chat-text"]').isDisabled()).toBe(true);
  });

  it("shows an agent's question and takes the user's answer, which the agent then uses", async () => {
    const { page } = weft;
    await page.goto(`${weft.url}/#/scenes`, { timeout: 30_000 });
    await openScene(page, "asking");
    await page.locator('[data-testid="scene-start"]').click();
    await poll(() => page.locator('[data-testid="scene-status"]').getAttribute("data-status")).toBe("running");
    await say(page, "asker", "Remember my city.");

    await poll(() => agentStatus(page, "asker"), { timeout: 60_000 }).toBe("waiting_user");
    const question = card(page, "asker").locator('[data-testid="agent-question"]');
    expect(await question.textContent()).toContain("Which city?");
    if (SCREENSHOTS) await screenshotBothThemes(page, "scene-question");
    await card(page, "asker").locator('[data-testid="agent-trace"]').click();
    const asked = page.locator('[data-testid="agent-trace-steps"] [data-testid="trace-step"][data-step="1"] [data-testid="trace-action"]');
    await poll(() => texts(page, '[data-testid="agent-trace-steps"] [data-testid="trace-step"][data-step="1"] [data-testid="trace-action"]')).toContain("ask_user");
    expect(await asked.locator(".pill").textContent()).toBe("waiting_user");

    await question.locator("input").fill("Oslo");
    await question.locator('button[type="submit"]').click();
    await poll(() => question.count()).toBe(0);
    await page.locator('[data-testid="side-world"]').click();
    await poll(() => texts(page, '[data-testid="scene-world"]'), { timeout: 60_000 }).toContain('"Oslo"');
    await poll(() => page.locator('[data-testid="scene-timeline"] [data-testid="timeline-reply"]', { hasText: "Noted: Oslo." }).count(), { timeout: 60_000 }).toBe(1);
    await poll(() => agentStatus(page, "asker")).toBe("idle");
    expect(JSON.stringify(llm.chatBodies()[1]?.messages)).toContain("Oslo");

    await page.locator('[data-testid="scene-stop"]').click();
    await poll(() => page.locator('[data-testid="scene-status"]').getAttribute("data-status")).toBe("stopped");
  });

  it("creates a scene from agent profiles and deletes it", async () => {
    const { page } = weft;
    await page.goto(`${weft.url}/#/scenes`, { timeout: 30_000 });
    await page.locator('[data-testid="scene-new"]').click();
    const dialog = page.locator('[data-testid="scene-create"]');
    await dialog.locator("#scene-name").fill("Pair of agents");
    await dialog.locator("label", { hasText: "scribe" }).locator('input[type="checkbox"]').check();
    await dialog.locator("label", { hasText: "herald" }).locator('input[type="checkbox"]').check();
    if (SCREENSHOTS) await screenshotBothThemes(page, "scene-create");
    await dialog.locator('button[type="submit"]').click();
    await poll(() => page.locator(".scene-item.active").getAttribute("data-scene-id")).toBe("pair-of-agents");
    await poll(() => texts(page, '[data-testid="scene-agents"] .agent-card strong')).toBe("scribe\nherald");
    expect((await weft.read("/api/scenes/pair-of-agents", SceneAnswerSchema)).scene.agents).toEqual([
      { instanceId: "scribe", profileId: "scribe" },
      { instanceId: "herald", profileId: "herald" },
    ]);

    // The same name again is refused before anything is sent.
    await page.locator('[data-testid="scene-new"]').click();
    await dialog.locator("#scene-name").fill("Pair of agents");
    await dialog.locator('button[type="submit"]').click();
    expect(await texts(page, '[data-testid="scene-create"] .error-text')).toContain("pair-of-agents");
    await dialog.locator("button", { hasText: "Cancel" }).click();

    const item = page.locator('.scene-item[data-scene-id="pair-of-agents"]');
    await item.hover();
    await item.locator(".scene-delete").click();
    await page.locator(".dialog button.danger", { hasText: "Delete" }).click();
    await poll(() => item.count()).toBe(0);
    expect((await weft.api("GET", "/api/scenes/pair-of-agents")).status).toBe(404);
  });
});
