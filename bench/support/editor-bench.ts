/**
 * What the editor's benches share: the grid workflow they open, a real server holding it with a signed-in Chromium
 * (built frontend, Debian Chromium, 1440×900), and the wait for the workflow on screen.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { silentLogger, type WorkflowInput } from "../../packages/types/src/index.ts";
import { createServer, type WeftServer } from "../../apps/backend/src/server.ts";
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

export interface EditorBench {
  server: WeftServer;
  context: BrowserContext;
  page: Page;
  /** Closes the browser and the server and deletes their folders. */
  close(): Promise<void>;
}

/** A server with `workflow` stored and a Chromium signed in to it (not yet on the workflow). */
export async function openEditorBench(workflow: WorkflowInput): Promise<EditorBench> {
  const dataDir = mkdtempSync(join(tmpdir(), "weft-bench-data-"));
  const examplesDir = mkdtempSync(join(tmpdir(), "weft-bench-examples-"));
  const profileDir = mkdtempSync(join(tmpdir(), "weft-bench-profile-"));
  const server = await createServer({ dataDir, examplesDir, port: 0, logger: silentLogger });
  const context = await chromium.launchPersistentContext(profileDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1440, height: 900 } });
  const close = async () => {
    await context.close();
    await server.stop();
    // server.projectDir: the @project/ folder the server made beside the data folder.
    for (const dir of [dataDir, server.projectDir, examplesDir, profileDir]) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const created = await fetch(`${server.url}/api/workflows`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${server.accessToken}` },
      body: JSON.stringify({ workflow }),
    });
    if (created.status !== 201) throw new Error(`could not store the workflow: ${await created.text()}`);
    await signInBrowser(context, server);
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
