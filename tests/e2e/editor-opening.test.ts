import { describe, expect, it } from "vitest";
import { chainWorkflow } from "./support/notes.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

const weft = useWeft();

describe("opening the editor", () => {
  it("asks the server once for the catalogue, the list and the workflow it shows, then reopens the tabs of the last visit", async () => {
    const { page } = weft;
    await weft.createWorkflow(chainWorkflow("alpha", "Alpha", 3));
    await weft.createWorkflow(chainWorkflow("beta", "Beta", 2));
    const asked: string[] = [];
    page.on("request", (request) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith("/api/")) asked.push(`${request.method()} ${path}`);
    });

    // A first visit shows the first stored workflow by name.
    await page.goto(weft.url);
    await poll(() => page.locator(".vue-flow__node-weft").count()).toBe(3);
    await expect(page.locator(".tab").allTextContents()).resolves.toEqual([expect.stringContaining("Alpha")]);
    await poll(() => page.locator(".palette-item").count()).toBeGreaterThan(10);
    // The answers requested while the scripts load are the ones the editor reads: nothing is asked twice.
    const count = (call: string) => asked.filter((a) => a === call).length;
    expect([count("GET /api/nodes"), count("GET /api/workflows"), count("GET /api/workflows/alpha")]).toEqual([1, 1, 1]);
    expect(count("GET /api/workflows/beta")).toBe(0);
    // The scripts and the stylesheet came as the build encoded them, from the server's first answer on: a quarter of
    // their bytes or less (a real network pays for every one).
    const assets = await page.evaluate(() =>
      (performance.getEntriesByType("resource") as PerformanceResourceTiming[])
        .filter((r) => /\/assets\/(index|vendor)-.+\.(js|css)$/.test(r.name))
        .map((r) => ({ sent: r.encodedBodySize, size: r.decodedBodySize })),
    );
    expect(assets).toHaveLength(3);
    for (const { sent, size } of assets) expect(sent).toBeLessThan(size / 3);

    // Open the other one from the list; a reload reopens both tabs, the active one in front.
    await page.locator(".sidebar-tabs button", { hasText: "Workflows" }).click();
    // A double-click (two opens while the first still waits for the server) gives one tab: once
    // every fetch of beta has been answered and the page has handled it, there are still two tabs.
    let betaFetches = 0;
    let betaAnswered = 0;
    const isBeta = (url: string) => new URL(url).pathname === "/api/workflows/beta";
    page.on("request", (request) => void (isBeta(request.url()) && betaFetches++));
    page.on("requestfinished", (request) => void (isBeta(request.url()) && betaAnswered++));
    await page.locator('.workflow-item[data-workflow-id="beta"]').dblclick();
    await poll(() => page.locator(".tab").count()).toBe(2);
    await poll(() => page.locator(".vue-flow__node-weft").count()).toBe(2);
    await poll(() => betaAnswered > 0 && betaAnswered === betaFetches).toBe(true);
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
    expect(await page.locator(".tab").allTextContents()).toEqual([expect.stringContaining("Alpha"), expect.stringContaining("Beta")]);
    asked.length = 0;
    await page.reload();
    await poll(() => page.locator(".tab").count()).toBe(2);
    await poll(() => page.locator(".vue-flow__node-weft").count()).toBe(2);
    await expect(page.locator(".tab.active").textContent()).resolves.toContain("Beta");
    expect([count("GET /api/workflows/alpha"), count("GET /api/workflows/beta")]).toEqual([1, 1]);
    // Every script and stylesheet of the start, early-start.js included, came from the browser's cache without a
    // round trip (transferSize 0): all are fingerprinted and immutable. Revalidated, early-start.js held the page's
    // parser, and so the editor's scripts, for a round trip on every start.
    const kept = await page.evaluate(() =>
      (performance.getEntriesByType("resource") as PerformanceResourceTiming[])
        .filter((r) => /\.(js|css)$/.test(new URL(r.name).pathname))
        .map((r) => [new URL(r.name).pathname.replace(/-[\w-]{8}\./, "."), r.transferSize]),
    );
    expect(kept.sort()).toEqual([
      ["/assets/early-start.js", 0],
      ["/assets/index.css", 0],
      ["/assets/index.js", 0],
      ["/assets/vendor.js", 0],
    ]);
  });

  it("downloads the editor's scripts only; a side tab or a view not shown at opening loads its own when first opened", async () => {
    const { page } = weft;
    await weft.createWorkflow(chainWorkflow("gamma", "Gamma", 4));
    // The first test's visits left every script in the cache: without it, each one is asked for again (and seen here).
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    const scripts: string[] = [];
    const sheets: string[] = [];
    page.on("request", (request) => {
      const path = new URL(request.url()).pathname;
      const name = path.slice("/assets/".length).replace(/-[\w-]{8}\.(js|css)$/, "");
      if (path.startsWith("/assets/") && path.endsWith(".js")) scripts.push(name);
      if (path.startsWith("/assets/") && path.endsWith(".css")) sheets.push(name);
    });
    // From another page: only the hash would change otherwise, and the loaded editor would stay.
    await page.goto("about:blank");
    await page.goto(`${weft.url}/#/workflows/gamma`);
    await poll(() => page.locator(".vue-flow__node-weft").count()).toBe(4);
    // early-start.js (fingerprinted too: kept by the browser for good), the editor (the page's script) and the libraries,
    // one stylesheet: with the two preloads, six requests, as many as the browser sends to a server at once. The Versions,
    // Evals, Triggers, Runs and history tabs, the dialogs and the other views (Agents, Scenes, the Builder, Settings) are not in them.
    expect(scripts.sort()).toEqual(["early-start", "index", "vendor"]);
    expect(sheets).toEqual(["index"]);
    // The editor's and the libraries' carry Chromium's compile hint: their functions compile off the main thread while the file streams in.
    const firstLines = await page.evaluate(async () => {
      const loaded = performance.getEntriesByType("resource").filter((r) => /\/assets\/(index|vendor)-.*\.js$/.test(r.name));
      return Promise.all(loaded.map(async (r) => (await (await fetch(r.name)).text()).split("\n", 1)[0]));
    });
    expect(firstLines).toEqual(["//# allFunctionsCalledOnLoad", "//# allFunctionsCalledOnLoad"]);

    await page.locator(".sidebar-tabs button", { hasText: "Versions" }).click();
    await expect(page.locator(".versions-intro").waitFor()).resolves.toBeUndefined();
    expect(scripts).toEqual(expect.arrayContaining(["VersionsPanel", "versions"]));
    // The Agents view brings the agents feature (its store and schemas) with it: the opening did without them.
    await page.getByTestId("view-agents").click();
    await poll(() => scripts.includes("agents") && scripts.includes("AgentsView")).toBe(true);
  });

  it("breaks no rule of the page's content security policy while it opens (zod's eval probe was refused on every start)", async () => {
    const { page } = weft;
    await weft.createWorkflow(chainWorkflow("delta", "Delta", 2));
    await page.context().addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener("securitypolicyviolation", (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
    });
    await page.goto("about:blank");
    await page.goto(`${weft.url}/#/workflows/delta`);
    await poll(() => page.locator(".vue-flow__node-weft").count()).toBe(2);
    await expect(page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).resolves.toEqual([]);
  });
});
