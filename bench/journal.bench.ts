/**
 * `bun bench/journal.bench.ts`: what recording an agent's deliberation run costs the server, on the real SQLite
 * storage with payloads stored once (as the server runs it), while the store grows. Each run is what a scene's agent
 * step records: the run, its 11 events (`run.started` with the prompt and the history, the interface nodes, the LLM
 * node's start, chunk and finish with the history plus the answer) and the texts they reference. 50 agents take
 * turns; a history grows by two messages a step up to an 80-message window; the prompt ends with the world's state,
 * one value of which changes per step. The journal is flushed every 7 runs, about as often as a 50-agent scene commits.
 *
 * Prints one JSON line per stage: CPU µs per recorded run (this process's user + system time), and the payload rows
 * and database bytes each run adds. The stages run one after another on the same store (BENCH_STAGES: runs per
 * stage), so a cost that grows with the store shows as a later stage costing more.
 */
import { SecretRedactor, silentLogger, type RunEvent, type Workflow } from "../packages/types/src/index.ts";
import { openProcessStorage } from "../apps/backend/src/app-storage.ts";
import { EventJournal } from "../apps/backend/src/events/event-journal.ts";
import { EventHub } from "../apps/backend/src/events/event-hub.ts";
import { ExternalRunRecorder } from "../apps/backend/src/runs/external-run-recorder.ts";
import { removeDir, tempDir } from "../apps/backend/src/testing/temp-dirs.ts";
import { databaseBytes } from "./support/database-bytes.ts";

const STAGES = (process.env.BENCH_STAGES ?? "3000,20000,3000").split(",").map(Number);
const AGENTS = 50;
const WINDOW = 80;
const FLUSH_EVERY = 7;

const dir = tempDir("weft-journal-bench-");
const { storage, payloads } = await openProcessStorage({ dataDir: dir, redactor: new SecretRedactor(), log: silentLogger });
const journal = new EventJournal(storage, new EventHub(), { maxBatch: 100_000, flushMs: 60_000 }, silentLogger, payloads);
const workflow: Workflow = { id: "agent-deliberation", name: "Deliberation", description: "", revision: 1, nodes: [], edges: [], annotations: [], tags: [] };
const recorder = new ExternalRunRecorder(journal, () => workflow);

const histories: Array<Array<{ role: string; content: string }>> = Array.from({ length: AGENTS }, () => []);
const moods = Array.from({ length: AGENTS }, () => 0);
let step = 0;

/** Records one deliberation run of agent `a`, event by event, as the engine emits them. */
function recordRun(a: number): void {
  step++;
  moods[a] = step;
  const history = histories[a]!;
  history.push({ role: "user", content: `Observation: scene_publish_event succeeded (step ${step}). ${"The town heard it. ".repeat(6)}` });
  const messages = history.slice();
  const system = `You are v${a + 1}, a villager. ${"Act through the tools; write one <ACTION> per answer. ".repeat(25)}\n\nWORLD_STATE\n${moods.map((m, i) => `villagers.v${i + 1}.mood = ${m}`).join("\n")}\n`;
  const text = `On it.\n<ACTION>\n  <scene_world_set>\n    <path>villagers.v${a + 1}.mood</path>\n    <value>${step}</value>\n  </scene_world_set>\n</ACTION>`;
  const answer = { role: "assistant", content: text };
  history.push(answer);
  if (history.length > WINDOW) history.splice(0, 2);
  const runId = Bun.randomUUIDv7();
  const ts = Date.now();
  const emit = (event: Record<string, unknown>) => recorder.onEvent({ streamId: runId, runId, seq: 0, ts, ...event } as unknown as RunEvent);
  const node = (nodeId: string, nodeType: string, value: unknown) =>
    emit({ type: "node.completed", nodeId, invocationId: `${runId}:${nodeId}`, nodeType, inputs: { value }, outputs: { value }, durationMs: 0.2, cached: false });
  emit({ type: "run.started", workflowId: workflow.id, nodeCount: 7, inputs: { messages, system } });
  node("in_system", "core:workflow-input", system);
  node("in_messages", "core:workflow-input", messages);
  node("in_tools", "core:workflow-input", null);
  emit({ type: "node.started", nodeId: "llm", invocationId: `${runId}:llm`, nodeType: "llm:chat", inputs: { system, messages, tools: null }, attempt: 1 });
  emit({ type: "node.chunk", nodeId: "llm", invocationId: `${runId}:llm`, index: 0, chunk: text });
  const usage = { promptTokens: 900, completionTokens: 40, totalTokens: 940 };
  const outputs = { text, reasoning: "", toolCalls: [], usage, finishReason: "stop", message: answer, messages: [...messages, answer], raw: { id: `chatcmpl-${step}`, chunks: [text] } };
  emit({ type: "node.completed", nodeId: "llm", invocationId: `${runId}:llm`, outputs, durationMs: 40, cached: false });
  node("out_text", "core:workflow-output", text);
  node("out_reasoning", "core:workflow-output", "");
  node("out_tool_calls", "core:workflow-output", []);
  emit({ type: "run.completed", outputs: { text, reasoning: "", toolCalls: [] }, durationMs: 45 });
}

const payloadRows = () => (storage.sql.engine === "sqlite" ? (storage.sql.db.query("SELECT count(*) AS n FROM payloads").get() as { n: number }).n : 0);

let recorded = 0;
try {
  for (const runs of STAGES) {
    const rowsBefore = payloadRows();
    const bytesBefore = databaseBytes(dir);
    const cpu = process.cpuUsage();
    for (let i = 0; i < runs; i++) {
      recordRun(i % AGENTS);
      if (i % FLUSH_EVERY === FLUSH_EVERY - 1) await journal.flush();
    }
    await journal.flush();
    const used = process.cpuUsage(cpu);
    console.log(
      JSON.stringify({
        bench: "journal",
        runs_before: recorded,
        runs,
        cpu_us_per_run: Math.round((used.user + used.system) / runs),
        payload_rows_per_run: Number(((payloadRows() - rowsBefore) / runs).toFixed(2)),
        db_bytes_per_run: Math.round((databaseBytes(dir) - bytesBefore) / runs),
      }),
    );
    recorded += runs;
  }
} finally {
  await storage.close();
  removeDir(dir);
}
