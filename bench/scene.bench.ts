/**
 * `bun bench/scene.bench.ts`: a Smallville-like scene on the real server (a child process, as users
 * run it) with N agents (5, 25, 50 by default; BENCH_AGENTS=5,25 to choose, empty for the crash case only) and an instant
 * OpenAI-compatible LLM server in this process, so every millisecond measured is Weft's own.
 *
 * Every agent listens to `town.*`. Woken, it writes its mood into the world (scene:world-set), tells
 * the town (scene:publish-event, which wakes every other agent) and answers: three agent steps per
 * deliberation. Mailboxes hold 4 triggers and coalesce, so busy agents fold the town's chatter. The
 * scene's step budget (BENCH_BUDGET deliberations, default 600 as issue #22 measures) ends the run; a user message to all starts it.
 *
 * While it runs, `/api/health` is asked every 20 ms and the timeline polled by cursor every 250 ms,
 * and a WebSocket follows the scene's stream. Each size runs two such scenes on one server: the first
 * on the server just started, the second (`warm`, with other agents) once the first is over, as on a
 * server that has been running. Prints one JSON line per N: agent steps per second,
 * server CPU ms per step (the child's utime+stime; also split by thread name: the event loop "main",
 * JIT compiler threads, GC helpers), the share of the machine's cores other processes used meanwhile,
 * health p50/p99, storage bytes per step (the
 * SQLite file after a clean shutdown, less its size before the scenes, over both; `tables` splits it), timeline
 * poll p99, stream events delivered/expected, and whether the replay matched the recorded state.
 * Then the crash case (`measureCrash`, BENCH_CRASH_AGENTS=25 by default, empty to skip): SIGKILL
 * mid-scene, restart, effects applied twice, stream against the committed log, replay.
 * BENCH_CPU_PROF=<dir>: the server writes a CPU profile there (`bun --cpu-prof`); read it with
 * `bun bench/support/cpu-profile-summary.ts <dir>/<file>.cpuprofile`.
 */
import { Database } from "bun:sqlite";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { spawnServer, type ChildServer } from "../apps/backend/src/testing/child-server.ts";
import { removeDir, removeTempDirs, tempDir } from "../apps/backend/src/testing/temp-dirs.ts";
import { TestWsClient } from "../apps/backend/src/testing/ws-client.ts";
import { readSqliteSceneState } from "../apps/backend/src/scenes/testing/read-scene-state.ts";
import { CursorSchema, ProfileIdAnswerSchema, ReplaySummarySchema } from "../apps/backend/src/testing/answers.ts";
import { SceneLogEntrySchema, SceneStateViewSchema, SceneTimelineSchema, type SceneLogEntry, type SceneRuntimeState, type SceneStateView, type SceneTimeline } from "../packages/types/src/index.ts";
import { observationsSinceUser, serveModel, streamedAction, streamedReply } from "./support/instant-llm.ts";
import { databaseBytes } from "./support/database-bytes.ts";

const EXAMPLES = fileURLToPath(new URL("../workflows", import.meta.url));
const SIZES = (process.env.BENCH_AGENTS ?? "5,25,50").split(",").filter(Boolean).map(Number);
const BUDGET = Number(process.env.BENCH_BUDGET ?? 600);
const SCENE = "town";
/** The second scene of each size, on the then warm server (`measure`). */
const WARM_SCENE = "town-later";

const answer = streamedReply("Done for now.");

/** Answers at once: world-set, then publish, then a plain answer, counted from the last non-Observation user message. */
let replies = 0;
const llm = serveModel((messages) => {
  const observations = observationsSinceUser(messages);
  const who = /You are (v\d+)/.exec(String(messages[0]?.content))?.[1] ?? "someone";
  const n = ++replies;
  return observations === 0
    ? streamedAction("scene_world_set", { path: `villagers.${who}.mood`, value: n })
    : observations === 1
      ? streamedAction("scene_publish_event", { topic: "town.said", payload: `{"from":"${who}","n":${n}}` })
      : answer;
});

const quantile = (values: number[], q: number) => (values.length === 0 ? 0 : [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))]!);
const round = (n: number, digits = 2) => Number(n.toFixed(digits));

/** The child's user + system CPU time in ms (Linux /proc; clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
/** The whole machine's busy CPU time in ms (Linux /proc/stat: user, nice, system, irq, softirq, steal; ticks of 10 ms). */
function machineBusyMs(): number {
  const fields = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  return [0, 1, 2, 5, 6, 7].reduce((sum, at) => sum + (fields[at] ?? 0), 0) * 10;
}
/** CPU ms per thread name (Linux /proc/<pid>/task), to tell the event loop from JIT and GC threads. */
function threadCpuMs(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const name = tid === String(pid) ? "main" : stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).replace(/\d+$/, "");
      const fields = stat.split(") ")[1]!.split(" ");
      out.set(name, (out.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** The servers this bench started and has not stopped yet. */
const running = new Set<ChildServer>();

async function startServer(dataDir: string, env: Record<string, string>): Promise<ChildServer> {
  const child = await spawnServer(dataDir, env);
  running.add(child);
  void child.proc.exited.then(() => running.delete(child));
  return child;
}

// Interrupted (Ctrl-C, `timeout`): Bun exits without running `finally`, so the servers and folders are taken care of here.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    for (const child of running) child.proc.kill("SIGKILL");
    if (process.env.BENCH_KEEP !== "1") removeTempDirs();
    process.exit(130);
  });
}

async function setup(child: ChildServer, agents: number, scene = SCENE, prefix = "v"): Promise<void> {
  const must = async (method: string, path: string, body?: unknown) => {
    const res = await child.call(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const profile = ProfileIdAnswerSchema.parse(await must("POST", "/api/llm-profiles", { name: "instant", baseUrl: llm.baseUrl, model: "bench-model", maxRetries: 0 }));
  const ids = Array.from({ length: agents }, (_, i) => `${prefix}${i + 1}`);
  for (const id of ids) {
    await must("POST", "/api/agents", {
      id,
      name: id,
      persona: `You are ${id}, a villager. When woken, note your mood in the world, tell the town, then rest.`,
      deliberationWorkflowId: "agent-deliberation",
      llmProfileId: profile.profile.id,
      tools: ["scene:world-set", "scene:publish-event"],
      subscribedEvents: ["town.*"],
      maxSteps: 4,
    });
  }
  await must("POST", "/api/scenes", { id: scene, name: "Town", agents: ids.map((id) => ({ instanceId: id, profileId: id })), stepBudget: BUDGET, mailbox: { capacity: 4, overflow: "coalesce" } });
}

/** Waits until the scene has nothing in flight and nothing it will still take (paused by its budget, or idle). */
async function settled(child: ChildServer, scene: string): Promise<SceneStateView> {
  for (;;) {
    await Bun.sleep(100);
    const state = SceneStateViewSchema.parse((await child.call("GET", `/api/scenes/${scene}/state`)).body);
    if (state.agents.every((a) => a.inFlight === null) && (state.status === "paused" || state.agents.every((a) => a.queue.length === 0))) return state;
  }
}

/**
 * One scene on the running server, from the user's first message until it has nothing left to do,
 * with the server watched meanwhile (health, timeline polls, a WebSocket on its stream); then its
 * timeline read whole, its stream checked against the state, and its replay. Storage is measured by
 * the caller (after a clean shutdown).
 */
async function runScene(child: ChildServer, scene: string): Promise<Record<string, unknown>> {
  const ws = await TestWsClient.connect(child.url);
  ws.subscribe(scene);
  const pid = child.proc.pid;
  const cpuBefore = cpuMs(pid);
  const threadsBefore = threadCpuMs(pid);
  const [machineBefore, benchBefore] = [machineBusyMs(), process.cpuUsage()];
  const t0 = performance.now();
  await child.call("POST", `/api/scenes/${scene}/start`);
  await child.call("POST", `/api/scenes/${scene}/messages`, { to: "all", text: "Good morning, town." });

  let done = false;
  const health: number[] = [];
  const polls: number[] = [];
  let pollBytesMax = 0;
  const healthLoop = (async () => {
    while (!done) {
      const s = performance.now();
      await fetch(`${child.url}/api/health`).then((r) => r.text());
      health.push(performance.now() - s);
      await Bun.sleep(20);
    }
  })();
  const pollLoop = (async () => {
    let cursor = "";
    while (!done) {
      const s = performance.now();
      const res = await child.call("GET", `/api/scenes/${scene}/timeline${cursor ? `?since=${encodeURIComponent(cursor)}` : ""}`);
      polls.push(performance.now() - s);
      pollBytesMax = Math.max(pollBytesMax, JSON.stringify(res.body).length);
      cursor = CursorSchema.parse(res.body).cursor;
      await Bun.sleep(250);
    }
  })();
  await settled(child, scene);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuMs(pid) - cpuBefore;
  const threadsAfter = threadCpuMs(pid);
  const bench = process.cpuUsage(benchBefore);
  // What else kept the machine's cores busy meanwhile: on a shared machine, a run's CPU time is read against it.
  const othersMs = Math.max(0, machineBusyMs() - machineBefore - cpu - (bench.user + bench.system) / 1000);
  const threadMs = [...threadsAfter].map(([name, ms]) => [name, ms - (threadsBefore.get(name) ?? 0)] as const).filter(([, ms]) => ms > 0);
  done = true;
  await Promise.all([healthLoop, pollLoop]);

  const entries: SceneLogEntry[] = [];
  // By cursor: a page full of agent steps has no new entries, and only the cursor moves past its steps.
  for (let cursor = ""; ;) {
    const res = await child.call("GET", `/api/scenes/${scene}/timeline?${cursor ? `since=${encodeURIComponent(cursor)}` : "fromSeq=0"}&limit=5000`);
    const page: SceneTimeline = SceneTimelineSchema.parse(res.body);
    entries.push(...page.entries);
    if (page.more !== true) break;
    cursor = CursorSchema.parse(res.body).cursor;
  }
  const count = (kind: string) => entries.filter((e) => e.kind === kind).length;
  const steps = count("llm.output");
  // Every event the server stored for the scene by now must reach the subscriber.
  await Bun.sleep(300);
  const expected = SceneStateViewSchema.parse((await child.call("GET", `/api/scenes/${scene}/state`)).body).streamSeq + 1;
  const deadline = Date.now() + 10_000;
  while (new Set(ws.events(scene).map((e) => e.seq)).size < expected && Date.now() < deadline) await Bun.sleep(50);
  const streamed = ws.events(scene);
  const delivered = new Set(streamed.map((e) => e.seq)).size;
  const worldInStream = streamed.filter((e) => e.type === "world.changed").length;
  ws.close();

  const r0 = performance.now();
  const replay = ReplaySummarySchema.parse((await child.call("POST", `/api/scenes/${scene}/replay`)).body);
  const replayMs = performance.now() - r0;
  await child.call("POST", `/api/scenes/${scene}/stop`);
  return {
    steps,
    deliberations: count("deliberation.started"),
    log_entries: entries.length,
    coalesced_entries: count("trigger.coalesced"),
    seconds: round(seconds),
    steps_per_s: round(steps / seconds),
    cpu_ms_per_step: round(cpu / steps),
    // Per thread name: the event loop ("main") against JIT compilers and GC helpers (threads that ended are not counted).
    cpu_ms_per_step_by_thread: Object.fromEntries(threadMs.map(([name, ms]) => [name, round(ms / steps)])),
    // The share of the machine's cores that processes other than the server and this bench used during the scene.
    others_cpu_share: round(othersMs / (seconds * 1000 * availableParallelism())),
    health_p50_ms: round(quantile(health, 0.5)),
    health_p99_ms: round(quantile(health, 0.99)),
    health_max_ms: round(Math.max(...health)),
    // How many health answers came back while the scene ran: a stalled server answers few (p99 of one is its max).
    health_samples: health.length,
    timeline_poll_p99_ms: round(quantile(polls, 0.99)),
    timeline_polls: polls.length,
    timeline_poll_max_bytes: pollBytesMax,
    events_delivered: delivered,
    events_expected: expected,
    world_changes_in_stream: worldInStream,
    world_changes_in_log: count("world.changed"),
    replay_matched: replay.matches === true,
    replay_differences: Array.isArray(replay.differences) ? replay.differences.length : replay,
    replay_ms: round(replayMs),
  };
}

/**
 * Two scenes of N agents, one after the other, on one server started for them. The first meets a
 * server in its first seconds, whose code the JIT compiles while the scene runs (the JSON line's
 * top-level fields); the second (`warm`, other agents in a scene of their own) a server that has
 * run a while, as a long-lived one has: its CPU per step is what each further step costs.
 * Storage per step is over both scenes, from the SQLite file after a clean shutdown.
 */
async function measure(agents: number): Promise<Record<string, unknown>> {
  const dataDir = tempDir("weft-scene-bench-");
  const child = await startServer(dataDir, { WEFT_EXAMPLES_DIR: EXAMPLES, WEFT_DEMO_LLM: "off" });
  try {
    await setup(child, agents);
    await setup(child, agents, WARM_SCENE, "w");
    const bytesBefore = databaseBytes(dataDir);
    const cold = await runScene(child, SCENE);
    const warm = await runScene(child, WARM_SCENE);
    child.proc.kill("SIGTERM");
    await child.proc.exited;

    const bytes = databaseBytes(dataDir) - bytesBefore;
    const db = new Database(join(dataDir, "weft.sqlite"), { readonly: true });
    const tables = Object.fromEntries(
      (db.query("SELECT name, SUM(pgsize) AS size FROM dbstat GROUP BY name ORDER BY size DESC LIMIT 6").all() as Array<{ name: string; size: number }>).map((r) => [r.name, r.size]),
    );
    db.close();
    return {
      bench: "scene",
      agents,
      budget: BUDGET,
      ...cold,
      bytes_per_step: Math.round(bytes / (Number(cold.steps) + Number(warm.steps))),
      tables,
      warm,
    };
  } finally {
    if (child.proc.exitCode === null) {
      child.proc.kill("SIGKILL");
      await child.proc.exited;
    }
    // BENCH_KEEP=1 leaves the data directory (its path on stderr) to look into.
    if (process.env.BENCH_KEEP === "1") console.error(`kept ${dataDir}`);
    else removeDir(dataDir);
  }
}

/** The scene's log and state as the server last committed them, read from its SQLite file. */
function committed(dataDir: string): { log: SceneLogEntry[]; state: SceneRuntimeState | undefined } {
  const db = new Database(join(dataDir, "weft.sqlite"), { readonly: true });
  try {
    const rows = db.query("SELECT data FROM scene_log WHERE scene_id = ? ORDER BY seq").all(SCENE) as Array<{ data: string }>;
    return { log: rows.map((r) => SceneLogEntrySchema.parse(JSON.parse(r.data))), state: readSqliteSceneState(db, SCENE) };
  } catch {
    return { log: [], state: undefined };
  } finally {
    db.close();
  }
}

/** Effects per deliberation: each world write and publish counted under the trigger its agent was deliberating. */
function effectsPerTrigger(log: readonly SceneLogEntry[]): Map<string, { world: number; events: number }> {
  const current = new Map<string, string>();
  const out = new Map<string, { world: number; events: number }>();
  const count = (agent: string | undefined, kind: "world" | "events") => {
    const trigger = agent === undefined ? undefined : current.get(agent);
    if (trigger === undefined) return;
    const key = `${agent}/${trigger}`;
    const c = out.get(key) ?? { world: 0, events: 0 };
    c[kind]++;
    out.set(key, c);
  };
  for (const e of log) {
    if (e.kind === "deliberation.started") current.set(e.instanceId, e.triggerId);
    else if (e.kind === "world.changed") count(e.change.agentId, "world");
    else if (e.kind === "event") count(e.source, "events");
  }
  return out;
}

/**
 * The crash case: the scene is killed (SIGKILL) once a third of its budget is spent, the server
 * started again on the same data, and the scene left to finish. Reports deliberations cut off,
 * effects applied twice (a deliberation of this bench writes the world once and publishes once),
 * whether the stream holds exactly the committed world changes, and whether the replay matched.
 */
async function measureCrash(agents: number): Promise<Record<string, unknown>> {
  const dataDir = tempDir("weft-scene-crash-bench-");
  const env = { WEFT_EXAMPLES_DIR: EXAMPLES, WEFT_DEMO_LLM: "off" };
  let child = await startServer(dataDir, env);
  try {
    await setup(child, agents);
    await child.call("POST", `/api/scenes/${SCENE}/start`);
    await child.call("POST", `/api/scenes/${SCENE}/messages`, { to: "all", text: "Good morning, town." });
    let atKill = committed(dataDir);
    while ((atKill.state?.budget.used ?? 0) < BUDGET / 3) {
      await Bun.sleep(10);
      atKill = committed(dataDir);
    }
    child.proc.kill("SIGKILL");
    await child.proc.exited;
    atKill = committed(dataDir);
    const cutOff = Object.values(atKill.state?.mailboxes ?? {}).filter((m) => m.inFlight !== null).length;

    const r0 = performance.now();
    child = await startServer(dataDir, env);
    const healthyMs = performance.now() - r0;
    for (;;) {
      await Bun.sleep(100);
      const state = SceneStateViewSchema.parse((await child.call("GET", `/api/scenes/${SCENE}/state`)).body);
      if (state.agents.every((a) => a.inFlight === null) && (state.status === "paused" || state.agents.every((a) => a.queue.length === 0))) break;
    }
    const replay = ReplaySummarySchema.parse((await child.call("POST", `/api/scenes/${SCENE}/replay`)).body);
    await child.call("POST", `/api/scenes/${SCENE}/stop`);
    const stream: Array<{ seq: number; type: string; path?: unknown; value?: unknown }> = [];
    for (let after = -1; ;) {
      const page = StreamPageSchema.parse((await child.call("GET", `/api/streams/${SCENE}/events?after=${after}&limit=5000`)).body);
      stream.push(...page.events);
      if (!page.hasMore || page.events.length === 0) break;
      after = page.events.at(-1)!.seq;
    }
    child.proc.kill("SIGTERM");
    await child.proc.exited;

    const { log } = committed(dataDir);
    const effects = [...effectsPerTrigger(log).values()];
    const logWorld = log.flatMap((e) => (e.kind === "world.changed" ? [`${e.change.path}=${JSON.stringify(e.change.after)}`] : []));
    const streamWorld = stream.flatMap((e) => (e.type === "world.changed" ? [`${String(e.path)}=${JSON.stringify(e.value)}`] : []));
    return {
      bench: "scene-crash",
      agents,
      budget: BUDGET,
      killed_at_budget_used: atKill.state?.budget.used ?? 0,
      deliberations_cut_off: cutOff,
      restart_to_healthy_ms: round(healthyMs),
      deliberations: log.filter((e) => e.kind === "deliberation.started").length,
      world_writes_applied_twice: effects.filter((c) => c.world > 1).length,
      publishes_applied_twice: effects.filter((c) => c.events > 1).length,
      world_changes_in_log: logWorld.length,
      world_changes_in_stream: streamWorld.length,
      stream_matches_log: JSON.stringify(logWorld) === JSON.stringify(streamWorld),
      stream_gaps: stream.filter((e, i) => e.seq !== i).length,
      replay_matched: replay.matches === true,
      replay_differences: Array.isArray(replay.differences) ? replay.differences.length : replay,
    };
  } finally {
    if (child.proc.exitCode === null) {
      child.proc.kill("SIGKILL");
      await child.proc.exited;
    }
    removeDir(dataDir);
  }
}

/** GET /api/streams/:id/events, as far as the crash case reads it. */
const StreamPageSchema = {
  parse(body: unknown): { events: Array<{ seq: number; type: string; path?: unknown; value?: unknown }>; hasMore: boolean } {
    const page = body as { events?: unknown; hasMore?: unknown };
    if (!Array.isArray(page?.events) || typeof page.hasMore !== "boolean") throw new Error(`not an events page: ${JSON.stringify(body).slice(0, 200)}`);
    return { events: page.events as Array<{ seq: number; type: string; path?: unknown; value?: unknown }>, hasMore: page.hasMore };
  },
};
const CRASH_AGENTS = (process.env.BENCH_CRASH_AGENTS ?? "25").split(",").filter(Boolean).map(Number);

try {
  for (const agents of SIZES) console.log(JSON.stringify(await measure(agents)));
  for (const agents of CRASH_AGENTS) console.log(JSON.stringify(await measureCrash(agents)));
} finally {
  await llm.stop();
}
