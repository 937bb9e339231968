/**
 * Canvas benchmark: a 1,000-node workflow in the real editor (built frontend, real backend, Debian
 * Chromium). Measures
 *   load_ms       navigation start → the workflow on screen (every rendered node measured, i.e. shown);
 *                 a large graph opens at a working zoom where only what is visible is rendered
 *   fps           frames per second while panning there (nodes enter and leave the render)
 *   fit_ms        `F` (fit view) → all the nodes shown (as components, or drawn by the overview of a
 *                 large graph at a far zoom)
 *   fps_overview  frames per second while panning the whole graph in view
 * from requestAnimationFrame timings. Prints one JSON line per size: 1,000 and 5,000 nodes.
 *
 *   bun run bench:canvas            (NODES=2000 bun bench/canvas.bench.ts for one other size)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Page } from "playwright-core";
import { silentLogger, type WorkflowInput } from "../packages/types/src/index.ts";
import { createServer } from "../apps/backend/src/server.ts";
import { buildFrontend } from "../tests/e2e/support/build-frontend.ts";
import { CHROMIUM, CHROMIUM_ARGS, signInBrowser } from "../tests/e2e/support/weft.ts";

const SIZES = process.env.NODES ? [Number(process.env.NODES)] : [1000, 5000];
const COLUMNS = 40;

/** A grid of text nodes, each row a chain: every node but the first of a row is fed by its left neighbour. */
function bigWorkflow(count: number): WorkflowInput {
  const nodes: WorkflowInput["nodes"] = [];
  const edges: NonNullable<WorkflowInput["edges"]> = [];
  for (let i = 0; i < count; i++) {
    const col = i % COLUMNS;
    const row = Math.floor(i / COLUMNS);
    nodes.push({ id: `n${i}`, type: "core:text-transform", position: { x: col * 320, y: row * 220 }, config: { case: i % 2 ? "upper" : "lower" }, inputs: col === 0 ? { text: `row ${row}` } : {} });
    if (col > 0) edges.push({ id: `e${i}`, source: `n${i - 1}`, sourceHandle: "text", target: `n${i}`, targetHandle: "text" });
  }
  return { id: "big", name: `${count} nodes`, nodes, edges };
}

/** Pans by dragging the empty corner of the canvas for `ms`, recording the time between animation frames. */
async function panFps(page: Page, ms: number): Promise<{ fps: number; p95FrameMs: number }> {
  const pane = await page.locator(".vue-flow__pane").boundingBox();
  if (!pane) throw new Error("no canvas");
  await page.evaluate(() => {
    const w = window as unknown as { __frames: number[]; __recording: boolean };
    w.__frames = [];
    w.__recording = true;
    const tick = (t: number) => {
      w.__frames.push(t);
      if (w.__recording) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  const start = { x: pane.x + 12, y: pane.y + 12 };
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  const began = Date.now();
  let step = 0;
  while (Date.now() - began < ms) {
    step++;
    // A back-and-forth sweep, as a user looking around the graph.
    const phase = (step % 120) / 120;
    const dx = Math.sin(phase * Math.PI * 2) * 300;
    const dy = Math.cos(phase * Math.PI * 2) * 150 - 150;
    await page.mouse.move(start.x + 300 + dx, start.y + 160 + dy);
  }
  await page.mouse.up();
  const frames = await page.evaluate(() => {
    const w = window as unknown as { __frames: number[]; __recording: boolean };
    w.__recording = false;
    return w.__frames;
  });
  const gaps = frames
    .slice(1)
    .map((t, i) => t - frames[i])
    .sort((a, b) => a - b);
  const span = frames[frames.length - 1] - frames[0];
  return { fps: Math.round(((frames.length - 1) / span) * 1000), p95FrameMs: Math.round(gaps[Math.floor(gaps.length * 0.95)] ?? 0) };
}

/** All `count` nodes on screen: rendered and measured as components, or drawn on the overview canvas. */
function allShown(count: number): number | false {
  const overview = document.querySelector(".canvas-overview");
  if (overview) return Number(overview.getAttribute("data-drawn")) >= count && performance.now();
  const rendered = document.querySelectorAll(".vue-flow__node-weft");
  if (rendered.length < count) return false;
  for (const el of Array.from(rendered)) if ((el as HTMLElement).style.visibility === "hidden") return false;
  return performance.now();
}

async function bench(count: number): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "weft-bench-data-"));
  const examplesDir = mkdtempSync(join(tmpdir(), "weft-bench-examples-"));
  const profileDir = mkdtempSync(join(tmpdir(), "weft-bench-profile-"));
  const server = await createServer({ dataDir, examplesDir, port: 0, logger: silentLogger });
  const context = await chromium.launchPersistentContext(profileDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1440, height: 900 } });
  try {
    const workflow = bigWorkflow(count);
    const created = await fetch(`${server.url}/api/workflows`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${server.accessToken}` },
      body: JSON.stringify({ workflow }),
    });
    if (created.status !== 201) throw new Error(`could not store the workflow: ${await created.text()}`);
    await signInBrowser(context, server);
    const page = context.pages()[0] ?? (await context.newPage());
    // A link to the workflow (a fresh profile opens on Home): the time runs from navigation start. Looked for from
    // the document's commit on: after goto's default wait for the load event, the look would start only after a
    // round trip through the bench process, and on a busy machine the nodes are often on screen long before it.
    await page.goto(`${server.url}/#/workflows/${workflow.id}`, { waitUntil: "commit" });
    const loadMs = await page.waitForFunction(
      () => {
        const rendered = document.querySelectorAll(".vue-flow__node-weft");
        if (rendered.length === 0) return false;
        // Vue Flow shows a node once it has measured it.
        for (const el of Array.from(rendered)) if ((el as HTMLElement).style.visibility === "hidden") return false;
        return performance.now();
      },
      undefined,
      { polling: "raf", timeout: 60_000 },
    );
    const load = Math.round((await loadMs.jsonValue()) as number);
    const renderedAtOpen = await page.locator(".vue-flow__node-weft").count();
    await page.waitForTimeout(500);
    const working = await panFps(page, 3000);

    await page.locator(".vue-flow__pane").click({ position: { x: 12, y: 12 } });
    const fitStart = await page.evaluate(() => performance.now());
    await page.keyboard.press("f");
    const fitDone = await page.waitForFunction(allShown, count, { polling: "raf", timeout: 120_000 });
    const fitMs = Math.round(((await fitDone.jsonValue()) as number) - fitStart);
    await page.waitForTimeout(500);
    const overview = await panFps(page, 3000);
    console.log(
      JSON.stringify({
        bench: "canvas",
        nodes: count,
        edges: workflow.edges?.length ?? 0,
        load_ms: load,
        rendered_at_open: renderedAtOpen,
        fps: working.fps,
        p95_frame_ms: working.p95FrameMs,
        fit_ms: fitMs,
        fps_overview: overview.fps,
        p95_frame_ms_overview: overview.p95FrameMs,
      }),
    );
  } finally {
    await context.close();
    await server.stop();
    // server.projectDir: the @project/ folder the server made beside the data folder.
    for (const dir of [dataDir, server.projectDir, examplesDir, profileDir]) rmSync(dir, { recursive: true, force: true });
  }
}

await buildFrontend();
for (const size of SIZES) await bench(size);
