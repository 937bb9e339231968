/**
 * The editor's start, split: a link to a workflow opened in the real editor (built frontend, real backend, Debian
 * Chromium), from navigation start to the workflow on screen (`load_ms`, as canvas.bench.ts measures it), with when
 *   html_ms       the document was in
 *   scripts_ms    the last script or stylesheet of the first load was in
 *   mounted_ms    the app had mounted (its first element in #app)
 *   workflow_ms   the workflow's answer was in
 * and the CPU the page spent until the workflow was on screen (Chromium's trace, thread time, so a busy machine's
 * waits are not in it): `renderer_cpu_ms` every thread of the page's renderer, `main_cpu_ms` its main thread,
 * `module_cpu_ms` the first load's scripts evaluated (the app's mount included: it runs in main.ts); `mount_main_cpu_ms`
 * and `mount_renderer_cpu_ms` the same as main_ and renderer_ until the mount (the start's first half). `first_load`
 * counts the requests and bytes of scripts and stylesheets sent before the mount. One JSON line per run; compare the
 * CPU figures (the times are noise on a loaded machine).
 *
 *   bun bench/canvas-start.bench.ts          (NODES=1000 RUNS=5 bun bench/canvas-start.bench.ts for one size)
 */
import { loadavg } from "node:os";
import { buildFrontend } from "../tests/e2e/support/build-frontend.ts";
import { gridWorkflow, openEditorBench, shownAt } from "./support/editor-bench.ts";

const SIZES = process.env.NODES ? [Number(process.env.NODES)] : [10, 1000];
const RUNS = Number(process.env.RUNS ?? 3);
interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  tdur?: number;
  pid: number;
  tid: number;
  args?: { data?: { documentLoaderURL?: string; isLoadingMainFrame?: boolean }; name?: string };
}

/** Thread time (ms) of the outermost complete events of each thread of `pid` that start in [t0, t0 + ms]. */
function cpuOf(events: TraceEvent[], pid: number, t0: number, ms: number, tid?: number): number {
  const byThread = new Map<number, TraceEvent[]>();
  for (const e of events) {
    if (e.pid !== pid || e.ph !== "X" || e.dur === undefined || (tid !== undefined && e.tid !== tid)) continue;
    if (e.ts < t0 || e.ts > t0 + ms * 1000) continue;
    const list = byThread.get(e.tid) ?? [];
    list.push(e);
    byThread.set(e.tid, list);
  }
  let sum = 0;
  for (const list of byThread.values()) {
    list.sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
    let end = -1;
    for (const e of list) {
      if (e.ts < end) continue;
      end = e.ts + (e.dur ?? 0);
      sum += (e.tdur ?? 0) / 1000;
    }
  }
  return Math.round(sum);
}

async function run(count: number): Promise<void> {
  const workflow = gridWorkflow("start", count);
  const { server, context, page, close } = await openEditorBench(workflow);
  try {
    await context.addInitScript(() => {
      new MutationObserver((_, observer) => {
        if (!document.getElementById("app")?.firstElementChild) return;
        (window as unknown as { mountedAt: number }).mountedAt = performance.now();
        observer.disconnect();
      }).observe(document, { childList: true, subtree: true });
    });
    const cdp = await context.newCDPSession(page);
    const events: TraceEvent[] = [];
    // The protocol types the events as string maps; they are the trace format's objects.
    cdp.on("Tracing.dataCollected", ({ value }) => void events.push(...(value as unknown[] as TraceEvent[])));
    await cdp.send("Tracing.start", {
      traceConfig: { includedCategories: ["toplevel", "devtools.timeline", "disabled-by-default-devtools.timeline", "v8", "blink.user_timing", "loading"] },
      transferMode: "ReportEvents",
    });
    await page.goto(`${server.url}/#/workflows/${workflow.id}`, { waitUntil: "commit" });
    const load = await shownAt(page);
    const timing = await page.evaluate((id) => {
      const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
      const mounted = (window as unknown as { mountedAt?: number }).mountedAt ?? null;
      const resources = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
      const assets = resources.filter((r) => /\.(js|css)$/.test(new URL(r.name).pathname) && (mounted === null || r.startTime < mounted));
      const answer = resources.find((r) => new URL(r.name).pathname === `/api/workflows/${id}`);
      return {
        html: nav.responseEnd,
        scripts: Math.max(...assets.map((r) => r.responseEnd)),
        mounted,
        workflow: answer?.responseEnd ?? null,
        requests: assets.length,
        bytes: assets.reduce((sum, r) => sum + r.encodedBodySize, 0),
      };
    }, workflow.id);
    const done = new Promise<void>((resolve) => cdp.once("Tracing.tracingComplete", () => resolve()));
    await cdp.send("Tracing.end");
    await done;
    // The navigation to the workflow's link (not the first blank page): its renderer, main thread and start.
    const start = events.filter((e) => e.name === "navigationStart" && e.args?.data?.documentLoaderURL?.startsWith(server.url)).pop();
    const cpu = (tid?: number, until = load) => (start ? cpuOf(events, start.pid, start.ts, until, tid) : null);
    const moduleCpu = start
      ? Math.round(events.filter((e) => e.name === "v8.evaluateModule" && e.pid === start.pid && e.ts >= start.ts && e.ts <= start.ts + load * 1000).reduce((sum, e) => sum + (e.tdur ?? 0) / 1000, 0))
      : null;
    const ms = (value: number | null) => (value === null ? null : Math.round(value));
    console.log(
      JSON.stringify({
        bench: "canvas-start",
        nodes: count,
        load_ms: ms(load),
        html_ms: ms(timing.html),
        scripts_ms: ms(timing.scripts),
        mounted_ms: ms(timing.mounted),
        workflow_ms: ms(timing.workflow),
        renderer_cpu_ms: cpu(),
        main_cpu_ms: cpu(start?.tid),
        module_cpu_ms: moduleCpu,
        mount_main_cpu_ms: timing.mounted === null ? null : cpu(start?.tid, timing.mounted),
        mount_renderer_cpu_ms: timing.mounted === null ? null : cpu(undefined, timing.mounted),
        first_load: { requests: timing.requests, kb: Math.round(timing.bytes / 1024) },
        loadavg: Number(loadavg()[0].toFixed(1)),
      }),
    );
  } finally {
    await close();
  }
}

await buildFrontend();
for (const size of SIZES) for (let i = 0; i < RUNS; i++) await run(size);
