/**
 * The agent loop's own cost per step, outside the LLM call. The text-helper agent (`<ACTION>` XML)
 * talks through the real `openai` SDK to an OpenAI-compatible server in this process that answers
 * at once: nine `core_math` actions, then an answer, per user message. Each step builds the
 * context, runs the deliberation workflow, parses the action, runs it as a single-node workflow,
 * and writes the step to SQLite (conversation log, session, and the step traces as the server
 * stores them). `llm_ms_per_step` is the time inside `LlmService.chat` (SDK, HTTP, the server);
 * `overhead_ms_per_step` is the rest; `cpu_ms_per_step_by_thread` splits `cpu_ms_per_step` into the JavaScript
 * thread, the JIT compiler, the garbage collector and the rest. Prints one JSON line. Target: overhead ≤ 2 ms per step.
 *
 * BENCH_TRACING=on traces as a server with tracing on does (the engine's and the LLM service's spans, the batch
 * processor, redaction, the OTLP/HTTP protobuf exporter) to a real OTLP receiver in a child process, or to
 * OTEL_EXPORTER_OTLP_ENDPOINT when set; the line says `"tracing":"on"` and how many spans arrived. Goal: ≤ 5% more
 * `ms_per_step` than `"tracing":"off"` (run the two alternately).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStorage } from "../apps/backend/src/testing/storage.ts";
import { createBuiltinRegistry } from "../packages/nodes/src/index.ts";
import { DirectoryWorkflowSource, ExecutionEngine, ProfileLlmService, StaticLlmProfileResolver } from "../packages/agent-runtime/src/index.ts";
import { observationsSinceUser, serveModel, streamedReply } from "./support/instant-llm.ts";
import { converse } from "./support/agent-conversation.ts";
import { AgentProfileSchema, LlmProfileSchema, type LlmService } from "../packages/types/src/index.ts";
import { MIGRATIONS } from "../apps/backend/src/schema.ts";
import { startTracing } from "../apps/backend/src/tracing/process-tracing.ts";
import { startReceiverProcess } from "./support/otlp-receiver-child.ts";
import { threadCpu, threadCpuSince } from "./support/thread-cpu.ts";
import { SecretRedactor, silentLogger } from "../packages/types/src/index.ts";

const STEPS = Number(process.env.BENCH_STEPS ?? 1000);
const STEPS_PER_MESSAGE = 10;
// Warm-up long enough for the JIT to reach its steady state, as a long-running server has. With 20 messages
// (200 steps) the first 2,000 measured steps still spent 0.58 ms (tracing off) and 0.73 ms (on) per step on the JIT
// threads, the later windows 0.06–0.36 (BENCH_WINDOW_STEPS=2000, 20,000 steps): the one-off compilation, of the
// tracing SDK above all, counted as per-step cost.
const WARMUP_MESSAGES = Number(process.env.BENCH_WARMUP_MESSAGES ?? 250);
/** With BENCH_WINDOW_STEPS=N, a JSON line on stderr per N measured steps: per-step ms and CPU by thread over that window (does the cost settle, or keep growing?). */
const WINDOW_STEPS = Number(process.env.BENCH_WINDOW_STEPS ?? 0);
const WORKFLOWS = join(import.meta.dir, "../workflows");

const ACTION = "I will compute it.\n<ACTION>\n  <core_math>\n    <a>6</a>\n    <b>7</b>\n    <op>multiply</op>\n  </core_math>\n</ACTION>";
const ANSWER = "6 × 7 = 42.";

const actionBody = streamedReply(ACTION, 8);
const answerBody = streamedReply(ANSWER, 8);

// Nine actions, then the answer.
const server = serveModel((messages) => (observationsSinceUser(messages) < STEPS_PER_MESSAGE - 1 ? actionBody : answerBody));

const TRACING = process.env.BENCH_TRACING === "on";
// The exporter reads its endpoint from the environment, as in a server.
const receiver = TRACING && !process.env.OTEL_EXPORTER_OTLP_ENDPOINT ? await startReceiverProcess() : undefined;
if (receiver) process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
const traces = TRACING ? startTracing(process.env, "weft-bench", new SecretRedactor(), silentLogger) : undefined;
if (TRACING && !traces) throw new Error("BENCH_TRACING=on but tracing did not start (is OTEL_SDK_DISABLED set?)");
const tracing = traces?.tracing;

const dataDir = mkdtempSync(join(tmpdir(), "weft-agent-bench-"));
const storage = await openSqliteStorage(dataDir, undefined, MIGRATIONS);
try {
  const profile = LlmProfileSchema.parse({ id: "bench", name: "Bench", baseUrl: server.baseUrl, model: "bench-model", maxRetries: 0 });
  const inner = new ProfileLlmService({ profiles: new StaticLlmProfileResolver([profile]), ...(tracing ? { tracing } : {}) });
  let llmMs = 0;
  const llm: LlmService = {
    async chat(request, options) {
      const t0 = performance.now();
      try {
        return await inner.chat(request, options);
      } finally {
        llmMs += performance.now() - t0;
      }
    },
  };
  const catalog = createBuiltinRegistry();
  const workflows = new DirectoryWorkflowSource(WORKFLOWS);
  const engine = new ExecutionEngine({ catalog, workflows, services: { llm }, ...(tracing ? { tracing } : {}) });
  const agentProfile = AgentProfileSchema.parse({ ...JSON.parse(readFileSync(join(WORKFLOWS, "agents/text-helper.json"), "utf8")), maxSteps: STEPS_PER_MESSAGE });

  const parts = { profile: agentProfile, engine, catalog, workflows, llm };

  for (let i = 0; i < WARMUP_MESSAGES; i++) await converse(parts, storage);
  const round = (n: number) => Math.round(n * 1000) / 1000;
  llmMs = 0;
  let steps = 0;
  const t0 = performance.now();
  // CPU time too: on a shared, loaded machine the wall clock mostly measures the others' load.
  const cpu0 = process.cpuUsage();
  const threads0 = threadCpu();
  let window = { steps: 0, t0, cpu0, threads0 };
  while (steps < STEPS) {
    const taken = await converse(parts, storage);
    steps += taken;
    window.steps += taken;
    if (WINDOW_STEPS > 0 && window.steps >= WINDOW_STEPS) {
      const cpu = process.cpuUsage(window.cpu0);
      const at = { ms_per_step: round((performance.now() - window.t0) / window.steps), cpu_ms_per_step: round((cpu.user + cpu.system) / 1000 / window.steps) };
      console.error(JSON.stringify({ bench: "agent-window", tracing: TRACING ? "on" : "off", steps_done: steps, ...at, cpu_ms_per_step_by_thread: threadCpuSince(window.threads0, window.steps) }));
      window = { steps: 0, t0: performance.now(), cpu0: process.cpuUsage(), threads0: threadCpu() };
    }
  }
  const totalMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const threads = threadCpuSince(threads0, steps);
  // Flushed after the clock stopped: what the batch processor still holds is exported off the measured loop, as in a server.
  await traces?.shutdown();
  console.log(
    JSON.stringify({
      bench: "agent",
      tracing: TRACING ? "on" : "off",
      steps,
      ms_per_step: round(totalMs / steps),
      llm_ms_per_step: round(llmMs / steps),
      overhead_ms_per_step: round((totalMs - llmMs) / steps),
      cpu_ms_per_step: round((cpu.user + cpu.system) / 1000 / steps),
      // The same by thread (10 ms ticks): with tracing on, the JavaScript thread's and the compiler's share both grow.
      cpu_ms_per_step_by_thread: threads,
      ...(receiver ? { spans_received: (await receiver.stop()).spans } : {}),
    }),
  );
} finally {
  storage.close();
  await server.stop();
  if (receiver && !receiver.stopped) await receiver.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
