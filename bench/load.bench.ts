/**
 * First-load benchmark: the editor opened in a fresh Chromium profile (nothing cached) against the
 * real backend with the repository's examples, then reloaded (revalidation by ETag). Measures
 *   first_bytes        bytes on the wire for the first load (headers and bodies, as Chromium counts them)
 *   first_decoded      the same answers decoded (what they would weigh uncompressed)
 *   first_requests     requests made until the first node is on screen
 *   first_node_ms      navigation start → the first workflow node in the page
 *   js_bytes           of first_bytes, the scripts; api_bytes, the answers under /api/
 *   reload_bytes       bytes on the wire for a reload (unchanged answers come back as 304)
 *   reload_node_ms     navigation start → the first node, on that reload
 * Prints one JSON line.
 *
 *   bun run bench:load
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Page } from "playwright-core";
import { silentLogger } from "../packages/types/src/index.ts";
import { createServer } from "../apps/backend/src/server.ts";
import { buildFrontend } from "../tests/e2e/support/build-frontend.ts";
import { CHROMIUM, CHROMIUM_ARGS, signInBrowser } from "../tests/e2e/support/weft.ts";

const EXAMPLES = fileURLToPath(new URL("../workflows", import.meta.url));

interface Load {
  bytes: number;
  decoded: number;
  requests: number;
  jsBytes: number;
  apiBytes: number;
  firstNodeMs: number;
}

/** Loads (or reloads) the editor and counts what crossed the network until the first node was drawn. */
async function measuredLoad(page: Page, url: string, reload: boolean): Promise<Load> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  const urls = new Map<string, string>();
  const load: Load = { bytes: 0, decoded: 0, requests: 0, jsBytes: 0, apiBytes: 0, firstNodeMs: 0 };
  cdp.on("Network.responseReceived", (e) => urls.set(e.requestId, e.response.url));
  cdp.on("Network.dataReceived", (e) => (load.decoded += e.dataLength));
  cdp.on("Network.loadingFinished", (e) => {
    const path = new URL(urls.get(e.requestId) ?? url).pathname;
    load.requests++;
    load.bytes += e.encodedDataLength;
    if (path.endsWith(".js")) load.jsBytes += e.encodedDataLength;
    if (path.startsWith("/api/")) load.apiBytes += e.encodedDataLength;
  });
  if (reload) await page.reload();
  else await page.goto(url);
  await page.waitForFunction(() => (window as unknown as { firstNodeAt?: number }).firstNodeAt !== undefined, undefined, { timeout: 30_000 });
  load.firstNodeMs = Math.round(await page.evaluate(() => (window as unknown as { firstNodeAt: number }).firstNodeAt));
  // Answers still arriving for what is on screen (the rest of the first requests) are part of the load.
  await page.waitForLoadState("networkidle");
  await cdp.detach();
  return load;
}

await buildFrontend();
const dataDir = mkdtempSync(join(tmpdir(), "weft-bench-load-"));
const profileDir = mkdtempSync(join(tmpdir(), "weft-bench-profile-"));
const server = await createServer({ dataDir, examplesDir: EXAMPLES, port: 0, logger: silentLogger });
const context = await chromium.launchPersistentContext(profileDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1440, height: 900 } });
try {
  await signInBrowser(context, server);
  // The moment the first node enters the page, from navigation start (performance.now()).
  await context.addInitScript(() => {
    const seen = () => {
      if (document.querySelector(".vue-flow__node-weft")) {
        (window as unknown as { firstNodeAt: number }).firstNodeAt = performance.now();
        return true;
      }
      return false;
    };
    new MutationObserver((_, observer) => seen() && observer.disconnect()).observe(document, { childList: true, subtree: true });
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const first = await measuredLoad(page, server.url, false);
  const again = await measuredLoad(page, server.url, true);
  console.log(
    JSON.stringify({
      bench: "load",
      first_bytes: first.bytes,
      first_decoded: first.decoded,
      first_requests: first.requests,
      first_node_ms: first.firstNodeMs,
      js_bytes: first.jsBytes,
      api_bytes: first.apiBytes,
      reload_bytes: again.bytes,
      reload_node_ms: again.firstNodeMs,
    }),
  );
} finally {
  await context.close();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(server.projectDir, { recursive: true, force: true });
  rmSync(profileDir, { recursive: true, force: true });
}
