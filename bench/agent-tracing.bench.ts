/**
 * Tracing's overhead on the agent loop, measured in ONE process: bench/agent.bench.ts's loop (the text-helper agent,
 * an instant OpenAI-compatible server, steps stored in SQLite) run by arms that take turns conversation by
 * conversation, so the machine's load and the JIT's state are the same for all (BENCH_ARMS=off,on to choose):
 * - `off`: the engine and LLM service without tracing;
 * - `als`: the same, but each conversation runs inside `context.with` of the process's (enabled)
 *   AsyncLocalStorageContextManager with a non-root context: what an active AsyncLocalStorage store costs by itself;
 * - `noop`: traced with the API's no-op tracer: the runtime's span helpers and contexts, with non-recording spans;
 * - `sdk`: traced with the SDK's tracer but no span processor: recording spans that go nowhere;
 * - `rec`: the same with Weft's own recorder (`RecordingTracer`, which a server traces with): recording spans that go
 *   nowhere;
 * - `on`: the engine and LLM service traced as a server traces them (spans, redaction, the export thread, the
 *   OTLP/HTTP protobuf exporter) to a real OTLP receiver in a child process.
 * Reports per arm the CPU of the agents' thread per step (`process.threadCpuUsage`, microseconds; the export thread
 * and the receiver are not in it) and the wall clock per step, and each arm's CPU against `off` in %. Separate
 * on and off processes (bench/agent.bench.ts) differ by ±10% run to run on a shared 2-core machine. Three runs of all
 * arms here (2026-12-01, BENCH_ROUNDS=100, load 1.6–2.7), median and range: `als` +0.9% (0 to +3.2): an active
 * AsyncLocalStorage store costs the loop nothing measurable; `noop` +3.9% (+3.2 to +9.2); `sdk` +10.8% (+9.7 to
 * +18.5); `on` +16.8% (+12.3 to +21.0). Eleven runs of BENCH_ARMS=off,sdk,on (BENCH_ROUNDS=200–300, load 1.3–9.9):
 * `sdk` +9.7% (+7.6 to +13.8), `on` +14.6% (+10.3 to +20.4). Goal: `on` ≤ 5% over `off`. Since 2026-12-02 a server
 * traces with `RecordingTracer` and encodes a batch in one call: docs/deploy.md, "Tracing", has the figures before and
 * after.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// The backend's copy of the API (the root has none), the one its tracer registered its context manager with.
import { context, createContextKey, ROOT_CONTEXT, trace } from "../apps/backend/node_modules/@opentelemetry/api";
import { AlwaysOnSampler, TracerProvider } from "../apps/backend/node_modules/@opentelemetry/sdk-trace";
import { emptyResource } from "../apps/backend/node_modules/@opentelemetry/resources";
import { openSqliteStorage } from "../apps/backend/src/testing/storage.ts";
import { createBuiltinRegistry } from "../packages/nodes/src/index.ts";
import { DirectoryWorkflowSource, ExecutionEngine, ProfileLlmService, StaticLlmProfileResolver, type Tracing } from "../packages/agent-runtime/src/index.ts";
import { observationsSinceUser, serveModel, streamedReply } from "./support/instant-llm.ts";
import { converse as converseWith } from "./support/agent-conversation.ts";
import { AgentProfileSchema, LlmProfileSchema, SecretRedactor, silentLogger } from "../packages/types/src/index.ts";
import { MIGRATIONS } from "../apps/backend/src/schema.ts";
import { startTracing } from "../apps/backend/src/tracing/process-tracing.ts";
import { RecordingTracer } from "../apps/backend/src/tracing/recording-tracer.ts";
import { startReceiverProcess } from "./support/otlp-receiver-child.ts";

/** Measured turns per arm (one conversation of 10 steps each). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 100);
const STEPS_PER_MESSAGE = 10;
/** Warm-up conversations per arm, for the JIT's steady state (bench/agent.bench.ts warms up with 250 in all). */
const WARMUP_PER_ARM = Number(process.env.BENCH_WARMUP_PER_ARM ?? 80);
const WORKFLOWS = join(import.meta.dir, "../workflows");
const ALL_ARMS = ["off", "als", "noop", "sdk", "rec", "on"] as const;
type Arm = (typeof ALL_ARMS)[number];
const ARMS = (process.env.BENCH_ARMS?.split(",") ?? ALL_ARMS).map((name) => {
  const arm = ALL_ARMS.find((a) => a === name);
  if (!arm) throw new Error(`BENCH_ARMS: "${name}" is none of ${ALL_ARMS.join(", ")}`);
  return arm;
});
if (ARMS[0] !== "off") throw new Error("BENCH_ARMS: the first arm is off, the one the others are compared with");

const ACTION = "I will compute it.\n<ACTION>\n  <core_math>\n    <a>6</a>\n    <b>7</b>\n    <op>multiply</op>\n  </core_math>\n</ACTION>";
const actionBody = streamedReply(ACTION, 8);
const answerBody = streamedReply("6 × 7 = 42.", 8);
const server = serveModel((messages) => (observationsSinceUser(messages) < STEPS_PER_MESSAGE - 1 ? actionBody : answerBody));

const receiver = process.env.OTEL_EXPORTER_OTLP_ENDPOINT ? undefined : await startReceiverProcess();
if (receiver) process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
/** The specification's default span limits, as `readTracingConfig` reads them from an empty environment. */
const SPAN_LIMITS = { attributeCountLimit: 128, attributeValueLengthLimit: Infinity, eventCountLimit: 128, linkCountLimit: 128 };
const traces = startTracing(process.env, "weft-bench", new SecretRedactor(), silentLogger);
if (!traces) throw new Error("tracing did not start (is OTEL_SDK_DISABLED set?)");
/** Fisher–Yates. */
function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

// A context with a value of its own: the context manager stores it for the whole conversation, as a traced one does.
const alsContext = ROOT_CONTEXT.setValue(createContextKey("weft.bench"), true);

const dataDir = mkdtempSync(join(tmpdir(), "weft-agent-tracing-bench-"));
const storage = await openSqliteStorage(dataDir, undefined, MIGRATIONS);
try {
  const profile = LlmProfileSchema.parse({ id: "bench", name: "Bench", baseUrl: server.baseUrl, model: "bench-model", maxRetries: 0 });
  const catalog = createBuiltinRegistry();
  const workflows = new DirectoryWorkflowSource(WORKFLOWS);
  const agentProfile = AgentProfileSchema.parse({ ...JSON.parse(readFileSync(join(WORKFLOWS, "agents/text-helper.json"), "utf8")), maxSteps: STEPS_PER_MESSAGE });
  const stack = (tracing: Tracing | undefined) => {
    const llm = new ProfileLlmService({ profiles: new StaticLlmProfileResolver([profile]), ...(tracing ? { tracing } : {}) });
    return { llm, engine: new ExecutionEngine({ catalog, workflows, services: { llm }, ...(tracing ? { tracing } : {}) }) };
  };
  const untraced = stack(undefined);
  const stacks: Record<Arm, ReturnType<typeof stack>> = {
    off: untraced,
    als: untraced,
    // No tracer provider is registered globally (startTracing does not), so the API's tracer is its no-op one.
    noop: stack({ tracer: trace.getTracer("weft-bench") }),
    sdk: stack({ tracer: new TracerProvider().getTracer("weft-bench") }),
    rec: stack({ tracer: new RecordingTracer(new AlwaysOnSampler(), { resource: emptyResource(), scope: { name: "weft-bench" }, limits: SPAN_LIMITS, ended: () => {} }) }),
    on: stack(traces.tracing),
  };

  /** One conversation of the arm's stack (bench/support/agent-conversation.ts). */
  const converse = (arm: Arm) => converseWith({ profile: agentProfile, catalog, workflows, ...stacks[arm] }, storage);
  const turn = (arm: Arm) => (arm === "als" ? context.with(alsContext, () => converse(arm)) : converse(arm));

  for (let i = 0; i < WARMUP_PER_ARM; i++) for (const arm of ARMS) await turn(arm);
  const totals = Object.fromEntries(ARMS.map((arm) => [arm, { steps: 0, cpuUs: 0, wallMs: 0 }])) as Record<Arm, { steps: number; cpuUs: number; wallMs: number }>;
  for (let i = 0; i < ROUNDS; i++) {
    // A new order each round: an arm pays for the garbage the one before it left, so none always follows the same one.
    for (const arm of shuffled(ARMS)) {
      const t0 = performance.now();
      const cpu0 = process.threadCpuUsage();
      const steps = await turn(arm);
      const cpu = process.threadCpuUsage(cpu0);
      totals[arm].wallMs += performance.now() - t0;
      totals[arm].cpuUs += cpu.user + cpu.system;
      totals[arm].steps += steps;
    }
  }
  await traces.shutdown();
  const round = (n: number) => Math.round(n * 1000) / 1000;
  const cpuPerStep = (arm: Arm) => totals[arm].cpuUs / 1000 / totals[arm].steps;
  const overheadPct = (arm: Arm) => Math.round((cpuPerStep(arm) / cpuPerStep("off") - 1) * 1000) / 10;
  console.log(
    JSON.stringify({
      bench: "agent-tracing",
      steps_per_arm: totals.off.steps,
      ...Object.fromEntries(ARMS.map((arm) => [arm, { main_cpu_ms_per_step: round(cpuPerStep(arm)), ms_per_step: round(totals[arm].wallMs / totals[arm].steps) }])),
      ...Object.fromEntries(ARMS.slice(1).map((arm) => [`${arm}_vs_off_pct`, overheadPct(arm)])),
      ...(receiver ? { spans_received: (await receiver.stop()).spans } : {}),
    }),
  );
} finally {
  storage.close();
  await server.stop();
  if (receiver && !receiver.stopped) await receiver.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
