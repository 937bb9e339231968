/**
 * What the editor's benches share: the grid workflow they open, a real server holding it with a signed-in Chromium
 * (built frontend, Debian Chromium, 1440×900), and the wait for the workflow on screen.
 *
 * The page meets what a user's page meets. The server runs in its own process (`bun apps/backend/src/main.ts`, as
 * `npm start` does), warm from one earlier page load of another workflow in another browser (the measured browser's
 * cache stays cold). The browser does not preload its omnibox popup (a WebUI page of its own, ~500 ms of CPU in a
 * renderer beside the page's on 2 cores), work a user's browser did when it started, not when a link is followed.
 * `WEFT_BENCH_COLD=1` measures as these benches did before, for comparison: the server new in the bench's process
 * (one thread with Playwright, its routes compiling on the page's first requests), the browser just started.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { silentLogger, type WorkflowInput } from "../../packages/types/src/index.ts";
import { createServer } from "../../apps/backend/src/server.ts";
import { spawnServer } from "../../apps/backend/src/testing/child-server.ts";
import { TEST_TOKEN } from "../../apps/backend/src/testing/http-call.ts";
import { CHROMIUM, CHROMIUM_ARGS, signInBrowser } from "../../tests/e2e/support/weft.ts";

const COLUMNS = 40;

/** A grid of `count` text nodes, each row a chain: every node but the first of a row is fed by its left neighbour. */
export function gridWorkflow(id: string, count: number): WorkflowInput {
  const nodes: WorkflowInput["nodes"] = [];
  const edges: NonNullable<WorkflowInput["edges"]> = [];
  for (let i = 0; i < count; i++) {
    const col = i % COLUMNS;
    const row = Math.floor(i / COLUMNS);
    nodes.push({ id: `n${i}`, type: "core:text-transform", position: { x: col * 320, y: row * 220 }, config: { case: i % 2 ? "upper" : "lower" }, inputs: col === 0 ? { text: `row ${row}` } : {} });
    if (col > 0) edges.push({ id: `e${i}`, source: `n${i - 1}`, sourceHandle: "text", target: `n${i}`, targetHandle: "text" });
  }
  return { id, name: `${count} nodes`, nodes, edges };
}

/** The server the page talks to: its address and the install's access token. */
export interface BenchServer {
  url: string;
  accessToken: string;
}

export interface EditorBench {
  server: BenchServer;
  context: BrowserContext;
  page: Page;
  /** Closes the browser and the server and deletes their folders. */
  close(): Promise<void>;
}

interface StartedServer extends BenchServer {
  stop(): Promise<void>;
}

const COLD = process.env.WEFT_BENCH_COLD === "1";
/**
 * Chromium's own start-up page (the omnibox popup, a WebUI page) is not loaded beside the measured one. Chromium reads
 * only the last `--disable-features`, so this one repeats the features Playwright (1.65, chromiumSwitches.ts) disables.
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  "AvoidUnnecessaryBeforeUnloadCheckSync",
  "DestroyProfileOnBrowserClose",
  "HttpsUpgrades",
  "HttpsFirstBalancedModeAutoEnable",
  "LensOverlay",
  "MediaRouter",
  "PaintHolding",
  "ThirdPartyStoragePartitioning",
  "AvoidCorsURLLoaderRestartOnRedirect",
  "TcpPortRandomizationWin",
  "OptimizationHints",
  "NetworkTimeServiceQuerying",
  "AimEnabled",
  "PreconnectToSearch",
];
const BROWSER_ARGS = COLD ? CHROMIUM_ARGS : [...CHROMIUM_ARGS, `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, "WebUIOmniboxPopup"].join(",")}`];

/** Its own process, or with WEFT_BENCH_COLD=1 in this one, new. */
async function startServer(dataDir: string, examplesDir: string, projectDir: string): Promise<StartedServer> {
  if (COLD) {
    const server = await createServer({ dataDir, examplesDir, projectDir, port: 0, logger: silentLogger });
    return { url: server.url, accessToken: server.accessToken, stop: () => server.stop() };
  }
  const child = await spawnServer(dataDir, { WEFT_EXAMPLES_DIR: examplesDir, WEFT_PROJECT_DIR: projectDir });
  return {
    url: child.url,
    accessToken: TEST_TOKEN,
    stop: async () => {
      child.proc.kill();
      await child.proc.exited;
    },
  };
}

async function store(server: BenchServer, workflow: WorkflowInput): Promise<void> {
  const created = await fetch(`${server.url}/api/workflows`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${server.accessToken}` },
    body: JSON.stringify({ workflow }),
  });
  if (created.status !== 201) throw new Error(`could not store the workflow: ${await created.text()}`);
}

/** A Chromium with its own new profile in `profileDir`, signed in to `server` (its session cookie set). */
async function signedInBrowser(server: BenchServer, profileDir: string): Promise<BrowserContext> {
  const context = await chromium.launchPersistentContext(profileDir, { executablePath: CHROMIUM, headless: true, args: BROWSER_ARGS, viewport: { width: 1440, height: 900 } });
  try {
    await signInBrowser(context, server);
    return context;
  } catch (error) {
    await context.close();
    throw error;
  }
}

/** A running server has served the editor before: one page load of another workflow, in a browser then closed. */
async function warm(server: BenchServer, profileDir: string): Promise<void> {
  const other = gridWorkflow("warm-up", 100);
  await store(server, other);
  const context = await signedInBrowser(server, profileDir);
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${server.url}/#/workflows/${other.id}`, { waitUntil: "commit" });
    await shownAt(page);
  } finally {
    await context.close();
  }
}

/** A server with `workflow` stored and a Chromium signed in to it (not yet on the workflow). */
export async function openEditorBench(workflow: WorkflowInput): Promise<EditorBench> {
  const dataDir = mkdtempSync(join(tmpdir(), "weft-bench-data-"));
  const examplesDir = mkdtempSync(join(tmpdir(), "weft-bench-examples-"));
  const projectDir = mkdtempSync(join(tmpdir(), "weft-bench-project-"));
  const warmProfileDir = mkdtempSync(join(tmpdir(), "weft-bench-profile-"));
  const profileDir = mkdtempSync(join(tmpdir(), "weft-bench-profile-"));
  const remove = () => {
    for (const dir of [dataDir, projectDir, examplesDir, warmProfileDir, profileDir]) rmSync(dir, { recursive: true, force: true });
  };
  let server: StartedServer | undefined;
  let context: BrowserContext | undefined;
  const close = async () => {
    await context?.close();
    await server?.stop();
    remove();
  };
  try {
    server = await startServer(dataDir, examplesDir, projectDir);
    await store(server, workflow);
    if (!COLD) await warm(server, warmProfileDir);
    context = await signedInBrowser(server, profileDir);
    return { server, context, page: context.pages()[0] ?? (await context.newPage()), close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The page's time (performance.now) when the workflow was on screen: its nodes rendered and measured (Vue Flow shows a
 * node once it has measured it). Looked for on every frame from the call on.
 */
export async function shownAt(page: Page): Promise<number> {
  const shown = await page.waitForFunction(
    () => {
      const rendered = document.querySelectorAll(".vue-flow__node-weft");
      if (rendered.length === 0) return false;
      for (const el of Array.from(rendered)) if ((el as HTMLElement).style.visibility === "hidden") return false;
      return performance.now();
    },
    undefined,
    { polling: "raf", timeout: 60_000 },
  );
  return (await shown.jsonValue()) as number;
}
