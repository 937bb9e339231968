/**
 * `bun bench/scene-timeline.bench.ts`: what the Scenes view's timeline reads cost in a long session.
 * The notice-board scene runs one real exchange with the demo LLM; its agents' recorded steps are then
 * copied until the session holds STEPS steps. Measured over loopback against the real server:
 * a full read (`GET /timeline` and the pages after it by cursor, every step) and an incremental one (`?since=<cursor>` with one new step).
 * Prints one JSON line.
 */
import { fileURLToPath } from "node:url";
import { SceneStateViewSchema, SceneTimelineSchema, type ConversationMessage } from "../packages/types/src/index.ts";
import { removeDir, startTestServer } from "../apps/backend/src/testing/test-server.ts";
import { until } from "../apps/backend/src/testing/until.ts";

const EXAMPLES = fileURLToPath(new URL("../workflows", import.meta.url));
const STEPS = 2000;
const READS = 50;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

const t = await startTestServer({ examplesDir: EXAMPLES });
try {
  const conversations = t.server.storage.conversations;
  const state = SceneStateViewSchema.parse((await t.call("POST", "/api/scenes/notice-board/start")).body);
  await t.call("POST", "/api/scenes/notice-board/messages", { to: "scribe", text: 'Post the note "Bench"' });
  await until("the exchange to be recorded", async () => {
    const steps = SceneTimelineSchema.parse((await t.call("GET", "/api/scenes/notice-board/timeline")).body).steps;
    return steps.length >= 4 ? true : undefined;
  });
  await t.call("POST", "/api/scenes/notice-board/stop");

  const conversationId = state.agents[0]?.conversationId as string;
  const template = (await conversations.messages(conversationId)).find((m) => m.role === "assistant" && m.agentStep);
  if (!template || template.role !== "assistant" || !template.agentStep) throw new Error("no recorded step to copy");
  const trace = template.agentStep;
  const copy = (n: number): ConversationMessage => ({ ...template, id: `bench-${n}`, agentStep: { ...trace, step: 100 + n, startedAt: trace.startedAt + n } });
  for (let n = 0; n < STEPS; n += 500)
    await conversations.append(
      conversationId,
      Array.from({ length: Math.min(500, STEPS - n) }, (_, i) => copy(n + i)),
    );

  const timed = async (path: string) => {
    const started = performance.now();
    const res = await t.fetch(path);
    const text = await res.text();
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
    return { ms: performance.now() - started, bytes: text.length, body: JSON.parse(text) };
  };
  const full: number[] = [];
  let fullBytes = 0;
  let cursor = "";
  let fullPages = 0;
  for (let i = 0; i < READS; i++) {
    // Answers are bounded in bytes (scene-timeline-page.ts): the whole timeline is its pages, read by cursor.
    let ms = 0;
    let bytes = 0;
    let pages = 0;
    for (let r = await timed("/api/scenes/notice-board/timeline"); ; r = await timed(`/api/scenes/notice-board/timeline?since=${encodeURIComponent(cursor)}`)) {
      ms += r.ms;
      bytes += r.bytes;
      pages++;
      cursor = r.body.cursor;
      if (r.body.more !== true) break;
    }
    full.push(ms);
    fullBytes = bytes;
    fullPages = pages;
  }
  const incremental: number[] = [];
  let incrementalBytes = 0;
  for (let i = 0; i < READS; i++) {
    await conversations.append(conversationId, [copy(STEPS + i)]);
    const r = await timed(`/api/scenes/notice-board/timeline?since=${encodeURIComponent(cursor)}`);
    if (r.body.steps.length !== 1) throw new Error(`expected one new step, got ${r.body.steps.length}`);
    incremental.push(r.ms);
    incrementalBytes = r.bytes;
    cursor = r.body.cursor;
  }
  console.log(
    JSON.stringify({
      bench: "scene-timeline",
      steps: STEPS,
      reads: READS,
      full_ms_p50: Number(median(full).toFixed(2)),
      full_bytes: fullBytes,
      full_pages: fullPages,
      incremental_ms_p50: Number(median(incremental).toFixed(2)),
      incremental_bytes: incrementalBytes,
    }),
  );
} finally {
  await t.stop();
  // The server's @project/ folder is <data>-project, beside it.
  for (const dir of [t.dataDir, `${t.dataDir}-project`]) removeDir(dir);
}
