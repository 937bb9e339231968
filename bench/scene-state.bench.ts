/**
 * `bun bench/scene-state.bench.ts`: the scene store's commit alone (log entry + state) on SQLite, with
 * states shaped as `bench:scene` makes them at BENCH_AGENTS agents (50 by default): per deliberation a
 * world-set step (one world change, the agent's mailbox changes), a publish step (every other agent's
 * mailbox coalesces a new trigger) and an answer step. Unchanged parts keep their objects, as the
 * runtime's snapshots do, so the store writes only what changed. Prints one JSON line: CPU ms per commit
 * (after a warm-up round), the state's JSON size, and whether the loaded state equals the last saved one.
 */
import type { MailboxState, SceneRuntimeState, WorldChange } from "../packages/types/src/index.ts";
import { SceneStore } from "../apps/backend/src/scenes/scene-store.ts";
import { MIGRATIONS } from "../apps/backend/src/schema.ts";
import { openSqliteStorage } from "../apps/backend/src/testing/storage.ts";
import { removeDir, tempDir } from "../apps/backend/src/testing/test-server.ts";

const AGENTS = Number(process.env.BENCH_AGENTS ?? 50);
const STEPS = 1950;
const HISTORY = 200;

const dir = tempDir("weft-scene-state-bench-");
const storage = await openSqliteStorage(dir, undefined, MIGRATIONS);
const store = new SceneStore(storage);
try {
  let triggers = 0;
  let worldSeq = 0;
  const trigger = (from: string) => ({
    id: `t${++triggers}`,
    at: Date.now(),
    coalesced: 0,
    kind: "event" as const,
    topic: "town.said",
    payload: { from, n: triggers, text: "what a villager told the town" },
    source: `agent:${from}`,
    eventSeq: triggers,
  });
  const ids = Array.from({ length: AGENTS }, (_, i) => `v${i + 1}`);
  const mailboxes: Record<string, MailboxState> = Object.fromEntries(
    ids.map((id) => [
      id,
      {
        queue: [trigger(id), trigger(id), { id: `u-${id}`, at: 1, coalesced: 0, kind: "user", text: "Good morning, town.", to: "all" }, trigger(id)],
        inFlight: null,
        delivered: 0,
        dropped: 0,
        coalesced: 0,
      },
    ]),
  );
  const coalesce = (id: string) => {
    const m = mailboxes[id]!;
    mailboxes[id] = { ...m, queue: m.queue.map((t, i) => (i === 0 ? { ...trigger(id), coalesced: t.coalesced + 1 } : t)), coalesced: m.coalesced + 1 };
  };
  const history: WorldChange[] = [];
  const document: Record<string, { mood: number }> = {};
  const snapshot = (step: number): SceneRuntimeState => ({
    version: 1,
    sceneId: "town",
    sceneRevision: 0,
    status: "running",
    world: { document: { villagers: structuredClone(document) }, seq: worldSeq, history: history.slice() },
    privateStates: Object.fromEntries(ids.map((id) => [id, {}])),
    mailboxes: { ...mailboxes },
    budget: { limit: 600, used: step },
    timers: [],
    counters: { trigger: triggers, event: triggers, log: step + 1, stream: step },
    runningMs: 0,
    savedAt: Date.now(),
  });

  let state = snapshot(0);
  let cpuMs = 0;
  for (let round = 0; round < 2; round++) {
    const before = process.cpuUsage();
    for (let step = 0; step < STEPS; step++) {
      const who = ids[step % AGENTS]!;
      if (step % 3 === 0) {
        document[who] = { mood: step };
        history.push({ seq: ++worldSeq, op: "set", path: `villagers.${who}.mood`, after: step, agentId: who, ts: Date.now() });
        if (history.length > HISTORY) history.splice(0, history.length - HISTORY);
      }
      if (step % 3 === 1) {
        for (const id of ids) if (id !== who) coalesce(id);
      } else {
        coalesce(who);
      }
      state = snapshot(step);
      await store.commit("town", [{ seq: round * STEPS + step, ts: 1, kind: "status", status: "running" }], state);
    }
    const used = process.cpuUsage(before);
    cpuMs = (used.user + used.system) / 1000;
  }
  const loaded = await store.loadState("town");
  console.log(
    JSON.stringify({
      bench: "scene-state",
      agents: AGENTS,
      commits: STEPS,
      cpu_ms_per_commit: Number((cpuMs / STEPS).toFixed(3)),
      state_json_bytes: JSON.stringify(state).length,
      loaded_equal: Bun.deepEquals(loaded, state),
    }),
  );
} finally {
  await storage.close();
  removeDir(dir);
}
