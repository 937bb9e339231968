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
import type { Page } from "playwright-core";
import { buildFrontend } from "../tests/e2e/support/build-frontend.ts";
import { gridWorkflow, openEditorBench, shownAt } from "./support/editor-bench.ts";

const SIZES = process.env.NODES ? [Number(process.env.NODES)] : [1000, 5000];
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
  const workflow = gridWorkflow("big", count);
  const { server, page, close } = await openEditorBench(workflow);
  try {
    // A link to the workflow (a fresh profile opens on Home): the time runs from navigation start. Looked for from
    // the document's commit on: after goto's default wait for the load event, the look would start only after a
    // round trip through the bench process, and on a busy machine the nodes are often on screen long before it.
    await page.goto(`${server.url}/#/workflows/${workflow.id}`, { waitUntil: "commit" });
    const load = Math.round(await shownAt(page));
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
    await close();
  }
}

await buildFrontend();
for (const size of SIZES) await bench(size);
