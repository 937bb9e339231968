import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { startScriptedLlmServer, type ScriptedLlmServer } from "../../packages/agent-runtime/src/index.ts";
import { texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { addScriptedAgent } from "./support/scripted-agent.ts";
import { SCREENSHOTS, screenshotBothThemes } from "./support/screens.ts";
import { openSettingsTab } from "./support/settings.ts";
import { useWeft } from "./support/weft.ts";
import { PermissionSettingsSchema } from "../../apps/frontend/src/features/settings/settings-api.ts";

/** The repository's examples, for the agent deliberation workflow. */
const EXAMPLES = fileURLToPath(new URL("../../workflows", import.meta.url));

/** An `<ACTION>` calling fs.write, as the model writes it. */
const write = (path: string, content: string) => ({
  kind: "text" as const,
  chunks: [`I will write it.\n<ACTION>\n  <fs_write>\n    <path>${path}</path>\n    <content>${content}</content>\n  </fs_write>\n</ACTION>`],
});

let llm: ScriptedLlmServer;
const weft = useWeft({ examplesDir: EXAMPLES }, async () => {
  // The filer writes a report (the user allows it), then a second file (the user rejects it), then says so.
  llm = await startScriptedLlmServer({
    turns: [write("@project/report.txt", "Quarterly numbers"), write("@project/second.txt", "More numbers"), { kind: "text", chunks: ["The second file was refused; I stopped there."] }],
  });
  await addScriptedAgent(weft, llm, { id: "filer", name: "Filer", tools: ["fs:write"] });
  expect((await weft.api("POST", "/api/scenes", { id: "filing", name: "Filing", agents: [{ instanceId: "filer", profileId: "filer" }] })).status).toBe(201);
});
afterAll(async () => {
  await llm?.stop();
});

const card = (page: Page) => page.locator('.agent-card[data-agent="filer"]');
const request = (page: Page) => card(page).locator('[data-testid="agent-permission"]');
const rule = (page: Page, index: number) => page.locator(`[data-testid="perm-rule"][data-index="${index}"]`);

/** The last message the model was sent: the Observation of its previous action. */
function lastObservation(): string {
  const messages = llm.chatBodies().at(-1)?.messages as { role: string; content: string }[];
  return String(messages.at(-1)?.content);
}

describe("permission rules, from the settings to a scene agent's card", () => {
  it("edits the rules in Settings → Permissions, with the server's refusals shown on the rule", async () => {
    const { page } = weft;
    await page.goto(weft.url);
    const section = await openSettingsTab(page, "permissions", "permissions");
    await poll(() => section.locator(".perm-empty").count()).toBe(1);

    // Three rules, the last one misspelt; the middle one moved to the end, the first removed.
    for (let i = 0; i < 3; i++) await page.getByTestId("perm-add-rule").click();
    await rule(page, 0).getByTestId("perm-action").selectOption("deny");
    await rule(page, 0).getByTestId("perm-tool").fill("shell.exec");
    await rule(page, 1).getByTestId("perm-action").selectOption("allow");
    await rule(page, 1).getByTestId("perm-tool").fill("fs.read");
    await rule(page, 2).getByTestId("perm-action").selectOption("ask");
    await rule(page, 2).getByTestId("perm-tool").fill("fs.wirte");
    await rule(page, 1).getByTestId("perm-down").click();
    await rule(page, 0).getByTestId("perm-remove").click();
    expect(await section.locator('[data-testid="perm-tool"]').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value))).toEqual(["fs.wirte", "fs.read"]);

    await page.getByTestId("perm-save").click();
    await poll(() => texts(page, '[data-testid="perm-rule-error"]')).toContain('"fs.wirte" matches none of the tools (did you mean "fs.write"?)');
    expect(await rule(page, 0).getByTestId("perm-tool").getAttribute("aria-invalid")).toBe("true");
    expect((await weft.api("GET", "/api/settings/permissions")).body).toEqual({ policy: { defaultAction: "allow", rules: [] }, updatedAt: null });
    if (SCREENSHOTS) await screenshotBothThemes(page, "settings-permissions-error");

    await rule(page, 0).getByTestId("perm-tool").fill("fs.write");
    await page.getByTestId("perm-save").click();
    await poll(async () => (await weft.read("/api/settings/permissions", PermissionSettingsSchema)).policy).toEqual({
      defaultAction: "allow",
      rules: [
        { action: "ask", tool: "fs.write" },
        { action: "allow", tool: "fs.read" },
      ],
    });
    await poll(() => page.locator('[data-testid="perm-rule-error"]').count()).toBe(0);
    expect(await page.getByTestId("perm-save").isDisabled()).toBe(true);
    if (SCREENSHOTS) await screenshotBothThemes(page, "settings-permissions");

    // The LLM profiles are the other tab, as before.
    await page.getByTestId("settings-tab-llm").click();
    await poll(() => page.getByTestId("llm-profiles").locator('li[data-profile="demo"]').count()).toBe(1);
    if (SCREENSHOTS) await screenshotBothThemes(page, "settings-llm-profiles");
    await page.getByTestId("settings-close").click();
    await poll(() => page.getByTestId("settings-dialog").count()).toBe(0);
  });

  it("pauses the scene agent on an `ask` rule until the user answers on its card: once writes, reject refuses", async () => {
    const { page } = weft;
    await page.locator('[data-testid="view-scenes"]').click();
    await page.locator('.scene-item[data-scene-id="filing"]').click();
    await poll(() => page.locator(".scene-item.active").getAttribute("data-scene-id")).toBe("filing");
    await page.locator('[data-testid="scene-start"]').click();
    await poll(() => page.locator('[data-testid="scene-status"]').getAttribute("data-status")).toBe("running");
    await page.locator('[data-testid="chat-to"]').selectOption("filer");
    await page.locator('[data-testid="chat-text"]').fill("Write the quarterly report.");
    await page.locator('[data-testid="chat-send"]').click();

    const project = weft.server.projectDir;
    await poll(() => card(page).getAttribute("data-status"), { timeout: 15_000 }).toBe("waiting_permission");
    expect(await card(page).getByTestId("agent-status").textContent()).toBe("waiting for permission");
    await poll(() => request(page).count()).toBe(1);
    expect(await request(page).textContent()).toMatch(/wants to use fs\.write on @project\/report\.txt/);
    expect(existsSync(join(project, "report.txt"))).toBe(false);
    if (SCREENSHOTS) await screenshotBothThemes(page, "scene-permission-request");

    await request(page).getByRole("button", { name: "Allow once" }).click();
    // The file is written and the agent goes on: its next action asks again, for another file.
    await poll(() => request(page).textContent(), { timeout: 15_000 }).toMatch(/wants to use fs\.write on @project\/second\.txt/);
    expect(readFileSync(join(project, "report.txt"), "utf8")).toBe("Quarterly numbers");
    expect(lastObservation()).toMatch(/Tool `fs_write` executed successfully/);

    await request(page).getByLabel("Note for the agent").fill("Not this one.");
    await request(page).getByRole("button", { name: "Reject" }).click();
    await poll(() => card(page).getAttribute("data-status"), { timeout: 15_000 }).toBe("idle");
    expect(await request(page).count()).toBe(0);
    expect(lastObservation()).toContain("The user rejected fs.write on @project/second.txt. Their feedback: Not this one.");
    expect(existsSync(join(project, "second.txt"))).toBe(false);
    await poll(() => page.locator('[data-testid="scene-timeline"] [data-testid="timeline-reply"]', { hasText: "The second file was refused" }).count(), { timeout: 15_000 }).toBe(1);

    await page.locator('[data-testid="scene-stop"]').click();
    await poll(() => page.locator('[data-testid="scene-status"]').getAttribute("data-status")).toBe("stopped");
  });
});
