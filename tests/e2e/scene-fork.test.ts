import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedLlmServer } from "../../packages/agent-runtime/src/index.ts";
import { poll } from "./support/poll.ts";
import { seriousViolations } from "./support/axe.ts";
import { addScriptedAgent, saveAgentVersion } from "./support/scripted-agent.ts";
import { useWeft } from "./support/weft.ts";
import { SceneStateViewSchema, SceneTimelineSchema } from "../../packages/types/src/index.ts";
import { SceneListAnswerSchema } from "../../apps/backend/src/testing/answers.ts";

const EXAMPLES = fileURLToPath(new URL("../../workflows", import.meta.url));
const setWorld = (path: string, value: string) => `Setting ${path}.\n<ACTION>\n  <scene_world_set>\n    <path>${path}</path>\n    <value>${value}</value>\n  </scene_world_set>\n</ACTION>`;

let llm: ScriptedLlmServer;
const weft = useWeft({ examplesDir: EXAMPLES, viewport: { width: 1024, height: 700 } }, async () => {
  // The original's four steps; then the fork's one live step after its edited step 2.
  llm = await startScriptedLlmServer({
    turns: [
      { kind: "text", chunks: [setWorld("n", "1")] },
      { kind: "text", chunks: [setWorld("n", "2")] },
      { kind: "text", chunks: [setWorld("n", "3")] },
      { kind: "text", chunks: ["Counted to 3."] },
      { kind: "text", chunks: ["The fork's own answer."] },
    ],
  });
  await addScriptedAgent(weft, llm, { id: "counter", name: "Counter", tools: ["scene:world-set"] });
  expect((await weft.api("POST", "/api/scenes", { id: "tally", name: "Tally", agents: [{ instanceId: "ann", profileId: "counter" }], initialWorldState: { n: 0 } })).status).toBe(201);
});
afterAll(async () => {
  await llm?.stop();
});

describe("forking a scene agent's step from the scene view", () => {
  it("Fork from here… on step 2 with an edited LLM output opens the fork with its banner, which links back", async () => {
    const { page } = weft;
    expect((await weft.api("POST", "/api/scenes/tally/start")).status).toBe(200);
    expect((await weft.api("POST", "/api/scenes/tally/messages", { to: "ann", text: "Count to three." })).status).toBe(202);
    await poll(async () => (await weft.read("/api/scenes/tally/timeline", SceneTimelineSchema)).entries.some((e) => e.kind === "deliberation.finished"), { timeout: 20_000 }).toBe(true);

    await page.goto(`${weft.url}#/scenes`);
    await page.locator('.scene-item[data-scene-id="tally"]').click();
    await page.getByTestId("side-trace").click();
    const step2 = page.locator('[data-testid="agent-trace-steps"] [data-testid="trace-step"][data-step="2"]');
    await poll(() => step2.count(), { timeout: 15_000 }).toBe(1);
    await step2.getByTestId("step-fork").click();
    await poll(() => page.getByTestId("scene-fork-dialog").count()).toBe(1);
    // The step's call has an observation: the form opens on it; the LLM output is the other choice.
    await page.getByTestId("scene-fork-mode-output").check();
    expect(await page.getByTestId("scene-fork-output").inputValue()).toContain("<value>2</value>");
    await page.getByTestId("scene-fork-output").fill(setWorld("n", "20"));
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByTestId("scene-fork-submit").click();

    // The fork is opened at once: its banner names the parent scene and the step; it went on live from there.
    await poll(() => page.getByTestId("scene-fork-banner").count(), { timeout: 15_000 }).toBe(1);
    const banner = (await page.getByTestId("scene-fork-banner").textContent()) ?? "";
    expect(banner).toContain("Fork of scene");
    expect(banner).toContain("tally");
    expect(banner).toContain("at step 2 of ann");
    expect(banner).toContain("LLM output changed");
    const fork = (await weft.read("/api/scenes", SceneListAnswerSchema)).scenes.find((s) => s.forkOf?.sceneId === "tally");
    expect(fork?.id).toMatch(/^tally--fork-/);
    await poll(async () => (await weft.read(`/api/scenes/${fork?.id ?? ""}/state`, SceneStateViewSchema)).world, { timeout: 20_000 }).toEqual({ n: 20 });
    // Steps 1 and 2 of the fork asked no model: the original's four requests and the fork's step 3.
    await poll(() => llm.chatBodies().length, { timeout: 20_000 }).toBe(5);
    expect(await seriousViolations(page)).toEqual([]);

    // Back to the original through the banner: no banner there.
    await page.getByTestId("scene-fork-parent").click();
    await poll(() => page.locator('.scene-item[data-scene-id="tally"] [aria-current="true"]').count()).toBe(1);
    await poll(() => page.getByTestId("scene-fork-banner").count()).toBe(0);
  });
  it("from the keyboard: step 2's observation edited on version 1 of the profile; the fork's banner says so and each branch links the other", async () => {
    const { page } = weft;
    await saveAgentVersion(weft, "counter", { persona: "PERSONA-TWO: you count differently." });
    llm.enqueue({ kind: "text", chunks: ["Version one goes on."] });
    await page.getByTestId("side-trace").click();
    const step2 = page.locator('[data-testid="agent-trace-steps"] [data-testid="trace-step"][data-step="2"]');
    await poll(() => step2.count(), { timeout: 15_000 }).toBe(1);
    const recorded = (await step2.getByTestId("trace-observation").textContent()) ?? "";
    await step2.getByTestId("step-fork").focus();
    await page.keyboard.press("Enter");
    await poll(() => page.getByTestId("scene-fork-dialog").count()).toBe(1);
    const observation = page.getByTestId("scene-fork-observation");
    await poll(() => observation.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(recorded).toContain(await observation.inputValue());
    await page.keyboard.press("Control+A");
    await page.keyboard.type("OBSERVED IN THE BROWSER: n is 99");
    // The profile's versions, newest first, after "The current profile": two steps down is version 1.
    const version = page.getByTestId("scene-fork-version");
    await poll(() => version.locator("option").count()).toBe(3);
    await version.focus();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    expect(await version.inputValue()).toBe("1");
    // At 1024×700 the whole form, its button too, is on screen.
    const inView = (testid: string) =>
      page.getByTestId(testid).evaluate((el) => {
        const r = el.getBoundingClientRect();
        return r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
      });
    expect(await inView("scene-fork-dialog")).toBe(true);
    expect(await inView("scene-fork-submit")).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByTestId("scene-fork-submit").focus();
    await page.keyboard.press("Enter");

    await poll(async () => (await page.getByTestId("scene-fork-banner").textContent()) ?? "", { timeout: 15_000 }).toContain("Observation of call 1 changed, agent version 1");
    const fork = (await weft.read("/api/scenes", SceneListAnswerSchema)).scenes.find((s) => s.forkOf?.sceneId === "tally" && s.forkOf.changed === "observation");
    expect(fork?.agents[0]?.profileVersion).toBe(1);
    // Steps 1-2 from the record (step 2 with the edited observation), step 3 live on version 1.
    await poll(() => llm.chatBodies().length, { timeout: 20_000 }).toBe(6);
    expect(JSON.stringify(llm.chatBodies()[5])).toContain("OBSERVED IN THE BROWSER: n is 99");
    expect(JSON.stringify(llm.chatBodies()[5])).not.toContain("PERSONA-TWO");
    await page.getByTestId("side-trace").click();
    const forkStep2 = page.locator('[data-testid="agent-trace-steps"] [data-testid="trace-step"][data-step="2"] [data-testid="trace-observation"]');
    await poll(async () => (await forkStep2.textContent()) ?? "", { timeout: 15_000 }).toContain("OBSERVED IN THE BROWSER: n is 99");
    await poll(() => page.locator('[data-testid="agent-trace-steps"] [data-testid="trace-step"][data-step="3"]').count(), { timeout: 15_000 }).toBe(1);

    // The other branch: the original, its step 2 as recorded, listing both forks; back to this one from there.
    await page.getByTestId("scene-fork-parent").click();
    await poll(() => page.getByTestId("scene-fork-link").count()).toBe(2);
    await poll(async () => (await forkStep2.textContent()) ?? "").toBe(recorded);
    await page.locator('[data-testid="scene-fork-link"]', { hasText: fork?.id.slice(-8) ?? "?" }).click();
    await poll(async () => (await page.getByTestId("scene-fork-banner").textContent()) ?? "").toContain("agent version 1");
    expect(await seriousViolations(page)).toEqual([]);
  });
});
