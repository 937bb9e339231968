import { afterAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Page } from "playwright-core";
import { poll } from "./support/poll.ts";
import { CHROMIUM, CHROMIUM_ARGS, useWeft } from "./support/weft.ts";
import { RunListSchema } from "../../apps/frontend/src/shared/api/schemas.ts";

let evil: ReturnType<typeof Bun.serve>;
const weft = useWeft({}, async () => {
  // A hostile page on another origin: another port of the same loopback address (same site, so a
  // SameSite cookie still goes along) and, by a second name, another site.
  evil = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(ATTACK_PAGE, { headers: { "content-type": "text/html" } }) });
});
afterAll(async () => {
  await evil?.stop(true);
});

/** Everything a page may send without CORS permission: simple fetches, a form, a beacon, and a JSON fetch that needs a preflight. */
const ATTACK_PAGE = `<!doctype html><meta charset="utf-8"><title>cute cats</title><body><script>
const target = new URLSearchParams(location.search).get("target");
const file = new URLSearchParams(location.search).get("file");
const draft = (name) => JSON.stringify({ workflow: { id: "pwn", name: "Pwn", nodes: [{ id: "w", type: "fs:write", inputs: { path: "@project/" + name, content: "pwned" } }], edges: [] } });
const results = [];
async function attempt(name, send) {
  try { await send(); results.push(name + ": sent"); } catch (e) { results.push(name + ": blocked " + e.message); }
}
(async () => {
  await attempt("no-cors text/plain run", () => fetch(target + "/api/workflows/pwn/runs", { method: "POST", mode: "no-cors", credentials: "include", headers: { "content-type": "text/plain" }, body: draft(file + "-plain") }));
  await attempt("no-cors save", () => fetch(target + "/api/workflows", { method: "POST", mode: "no-cors", credentials: "include", headers: { "content-type": "text/plain" }, body: JSON.stringify({ workflow: { id: "planted", name: "Planted", nodes: [], edges: [] } }) }));
  await attempt("cors json run", () => fetch(target + "/api/workflows/pwn/runs", { method: "POST", credentials: "include", headers: { "content-type": "application/json" }, body: draft(file + "-json") }));
  await attempt("beacon", async () => navigator.sendBeacon(target + "/api/workflows/pwn/runs", new Blob([draft(file + "-beacon")], { type: "text/plain" })));
  await attempt("read", async () => { const r = await fetch(target + "/api/workflows", { credentials: "include" }); results.push("read got " + (await r.text()).slice(0, 40)); });
  const form = document.createElement("form");
  form.method = "POST"; form.enctype = "text/plain"; form.action = target + "/api/workflows/pwn/runs"; form.target = "sink";
  const input = document.createElement("input"); input.name = draft(file + "-form").slice(0, -1) + ',"x":"'; input.value = '"}';
  form.appendChild(input);
  const sink = document.createElement("iframe"); sink.name = "sink"; document.body.appendChild(sink);
  document.body.appendChild(form); form.submit();
  await new Promise((r) => setTimeout(r, 1500));
  document.title = "done";
  window.results = results;
})();
</script></body>`;

async function attackFrom(origin: string, file: string): Promise<string[]> {
  const page = await weft.context.newPage();
  try {
    await page.goto(`${origin}/?target=${encodeURIComponent(weft.url)}&file=${file}`);
    await poll(() => page.title(), { timeout: 10_000 }).toBe("done");
    return (await page.evaluate(() => (window as unknown as { results: string[] }).results)) ?? [];
  } finally {
    await page.close();
  }
}

/** Signed in: the user menu names the account the API answered for (on Home or in the editor, wherever a new browser opens). */
async function signedInAs(page: Page): Promise<string> {
  return (await page.getByTestId("user-menu").count()) ? ((await page.getByTestId("user-menu").textContent()) ?? "") : "";
}

describe("a hostile page in the user's signed-in browser", () => {
  it("cannot start a run, write a file, save a workflow or read anything, from the same site or another", async () => {
    // The browser is signed in: the editor itself works.
    await weft.page.goto(weft.url);
    await poll(() => weft.page.locator(".palette-item").count()).toBeGreaterThan(10);

    const sameSite = await attackFrom(`http://127.0.0.1:${evil.port}`, "same-site");
    const crossSite = await attackFrom(`http://localhost:${evil.port}`, "cross-site");
    for (const results of [sameSite, crossSite]) {
      expect(results.some((r) => r.startsWith("cors json run: blocked"))).toBe(true);
      expect(results.some((r) => r.startsWith("read: blocked"))).toBe(true);
      expect(results.some((r) => r.startsWith("read got"))).toBe(false);
    }
    await Bun.sleep(1000);
    const project = weft.server.projectDir;
    for (const site of ["same-site", "cross-site"]) {
      for (const how of ["plain", "json", "beacon", "form"]) expect(existsSync(join(project, `${site}-${how}`)), `${site}-${how}`).toBe(false);
    }
    expect((await weft.read("/api/runs", RunListSchema)).runs).toEqual([]);
    expect((await weft.api("GET", "/api/workflows/planted")).status).toBe(404);

    // The same draft from the editor's own page runs: the checks above could have seen a write.
    const own = await weft.page.evaluate(async () => {
      const body = JSON.stringify({ workflow: { id: "pwn", name: "Own", nodes: [{ id: "w", type: "fs:write", inputs: { path: "@project/own-page", content: "mine" } }], edges: [] } });
      return (await fetch("/api/workflows/pwn/runs", { method: "POST", headers: { "content-type": "application/json" }, body })).status;
    });
    expect(own).toBe(202);
    await poll(() => existsSync(join(project, "own-page"))).toBe(true);
  });
});

describe("signing in", () => {
  it("asks a browser without a session for the token, refuses a wrong one, and signs in with the right one", async () => {
    const profile = mkdtempSync(join(tmpdir(), "weft-e2e-profile-"));
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      await page.goto(weft.url);
      const dialog = page.getByRole("dialog", { name: "Sign in to Weft" });
      await dialog.waitFor();
      await dialog.getByLabel("Access token").fill("not-the-token-not-the-token");
      await dialog.getByRole("button", { name: "Sign in" }).click();
      await expect(dialog.getByRole("alert").textContent()).resolves.toContain("not this Weft's access token");
      await dialog.getByLabel("Access token").fill(weft.server.accessToken);
      await dialog.getByRole("button", { name: "Sign in" }).click();
      await poll(() => signedInAs(page)).toContain("owner");
      await expect(page.getByRole("dialog", { name: "Sign in to Weft" }).count()).resolves.toBe(0);
      const cookies = await context.cookies(weft.url);
      expect(cookies.find((c) => c.name === "weft_session")).toMatchObject({ httpOnly: true, sameSite: "Strict" });
      // The page's scripts never see the session.
      await expect(page.evaluate(() => document.cookie)).resolves.not.toContain("weft_session");
    } finally {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });

  it("signs in from the printed link and takes the token out of the address bar", async () => {
    const profile = mkdtempSync(join(tmpdir(), "weft-e2e-profile-"));
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    const violations: string[] = [];
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      page.on("console", (m) => {
        if (m.text().includes("Content Security Policy")) violations.push(m.text());
      });
      await page.goto(weft.server.editorUrl);
      await poll(() => signedInAs(page)).toContain("owner");
      expect(page.url().split("#")[0]).toBe(`${weft.url}/`);
      await expect(page.getByRole("dialog", { name: "Sign in to Weft" }).count()).resolves.toBe(0);
      // The editor runs whole under its CSP.
      expect(violations).toEqual([]);
    } finally {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });
});
