import { afterAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedLlmServer } from "../../packages/agent-runtime/src/llm/testing/scripted-llm-server.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";
import { LlmProfileAnswerSchema, LlmProfileListSchema } from "../../apps/backend/src/testing/llm-profile-view.ts";

const KEY = "sk-e2e-0123456789abcdefghijklmnop9f2c";

let llm: ScriptedLlmServer;
const weft = useWeft({}, async () => {
  llm = await startScriptedLlmServer({ model: "gpt-e2e" });
});
afterAll(async () => {
  await llm?.stop();
});

/** Settings → LLM profiles in the browser, against the real server and a local OpenAI-compatible endpoint. */
describe("LLM profiles settings", () => {
  it("adds a provider with a key that is never shown again, tests it, and shows a refused key with its hint", async () => {
    const { page } = weft;
    await page.goto(weft.url);
    await page.getByTestId("settings").click();
    const dialog = page.getByTestId("llm-profiles");
    await poll(() => dialog.locator('li[data-profile="demo"]').textContent()).toContain("default");

    await page.getByTestId("new-profile").click();
    await page.locator("#lp-name").fill("Hosted");
    await page.locator("#lp-url").fill(llm.baseUrl);
    await page.locator("#lp-model").fill("gpt-e2e");
    await page.locator("#lp-key").fill(KEY);
    await page.getByTestId("save-profile").click();
    await dialog.locator('li[data-profile="hosted"].active').waitFor();

    // The key went to the server once; the form shows only its mask from then on.
    expect(await page.locator("#lp-key").inputValue()).toBe("");
    expect(await page.locator("#lp-key").getAttribute("placeholder")).toContain("sk-…9f2c");
    expect(await page.content()).not.toContain(KEY);
    const stored = await weft.api("GET", "/api/llm-profiles/hosted");
    expect(LlmProfileAnswerSchema.parse(stored.body).profile).toMatchObject({ baseUrl: llm.baseUrl, model: "gpt-e2e", hasApiKey: true });
    expect(JSON.stringify(stored.body)).not.toContain(KEY);

    llm.enqueue({ kind: "text", chunks: ["pong"] });
    await page.getByTestId("test-profile").click();
    await poll(() => page.getByTestId("profile-test-result").textContent()).toMatch(/Connected in \d+ ms/);
    expect(llm.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
    await dialog.locator('li[data-profile="hosted"] .health-dot.ok').waitFor();

    llm.enqueue({ kind: "http_error", status: 401, message: "Incorrect API key provided", code: "invalid_api_key" });
    await page.getByTestId("test-profile").click();
    await poll(() => page.getByTestId("profile-test-result").textContent()).toContain("AUTH");
    expect(await page.getByTestId("profile-test-result").textContent()).toMatch(/API key/);
    await dialog.locator('li[data-profile="hosted"] .health-dot.failed').waitFor();
  });

  it("refuses a bad base URL with the server's words, and stores nothing", async () => {
    const { page } = weft;
    const before = (await weft.read("/api/llm-profiles", LlmProfileListSchema)).profiles.length;
    await page.getByTestId("new-profile").click();
    await page.locator("#lp-name").fill("Broken");
    await page.locator("#lp-url").fill("ftp://example.com");
    await page.locator("#lp-model").fill("m");
    await page.getByTestId("save-profile").click();
    await poll(() => page.getByTestId("profile-error").textContent()).toMatch(/http:\/\/ or https:\/\//);
    expect((await weft.read("/api/llm-profiles", LlmProfileListSchema)).profiles.length).toBe(before);
  });

  it("warns that a changed address clears the key, clears it on save, and the new address never gets the old key", async () => {
    const { page } = weft;
    const dialog = page.getByTestId("llm-profiles");
    const elsewhere = await startScriptedLlmServer({ model: "gpt-e2e" });
    try {
      await dialog.locator('li[data-profile="hosted"]').click();
      expect(await page.getByTestId("key-will-clear").count()).toBe(0);
      await page.locator("#lp-url").fill(elsewhere.baseUrl);
      await page.getByTestId("key-will-clear").waitFor();
      await page.getByTestId("save-profile").click();
      await poll(() => page.locator(".toast.warning").textContent()).toMatch(/Enter the API key again/);
      await poll(() => page.locator("#lp-key").getAttribute("placeholder")).toBe("none");

      elsewhere.enqueue({ kind: "text", chunks: ["pong"] });
      await page.getByTestId("test-profile").click();
      await page.getByTestId("profile-test-result").waitFor();
      expect(elsewhere.requests.length).toBeGreaterThan(0);
      for (const request of elsewhere.requests) expect(JSON.stringify(request)).not.toContain(KEY);
    } finally {
      await elsewhere.stop();
    }
  });

  it("makes a profile the default and deletes it, falling back to the demo LLM", async () => {
    const { page } = weft;
    const dialog = page.getByTestId("llm-profiles");
    await dialog.locator('li[data-profile="hosted"]').click();
    await page.getByLabel("default profile").check();
    await page.getByTestId("save-profile").click();
    await poll(async () => (await weft.read("/api/llm-profiles/hosted", LlmProfileAnswerSchema)).profile.isDefault).toBe(true);
    await dialog.locator('li[data-profile="hosted"] .badge').waitFor();

    await dialog.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Delete" }).click();
    await poll(async () => (await weft.api("GET", "/api/llm-profiles/hosted")).status).toBe(404);
    await poll(async () => (await weft.read("/api/llm-profiles/demo", LlmProfileAnswerSchema)).profile.isDefault).toBe(true);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
  });
});
