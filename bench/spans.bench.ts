/**
 * Tracing's own cost, apart from the agent loop it traces: the 13 spans of one `<ACTION>` agent step as
 * bench/agent.bench.ts makes them (`invoke_agent`; the deliberation's `run` and its 7 `node` spans, with `chat` under
 * the LLM node; `execute_tool` with its `run` and `node`), through a server's pipeline (the runtime's span helpers,
 * redaction, the batch processor, the OTLP/HTTP protobuf exporter) to a real OTLP receiver in a child process. Each
 * step yields to the event loop, and every 8th pauses so exports keep up as in a server (`spans_received` says). Prints one JSON line: process CPU per step
 * and per span, and its split by thread.
 *
 * Set beside bench:agent's BENCH_TRACING=on minus off, it says how much of tracing's extra cost is the spans' own work.
 */
// The backend's copy of the API (the root has none), the one its tracer registered its context manager with.
import { context } from "../apps/backend/node_modules/@opentelemetry/api";
import type { LlmCaller, LlmChatResult, LlmProfile, NodeDefinition, Observation } from "../packages/types/src/index.ts";
import { LlmProfileSchema, SecretRedactor, silentLogger } from "../packages/types/src/index.ts";
import { startTracing } from "../apps/backend/src/tracing/process-tracing.ts";
import { NodeSpans } from "../packages/agent-runtime/src/engine/node-spans.ts";
import { endGraphSpan, startGraphSpan } from "../packages/agent-runtime/src/engine/run-span.ts";
import { traceAgentStep, traceToolCall } from "../packages/agent-runtime/src/agent/agent-spans.ts";
import { traceLlmCall } from "../packages/agent-runtime/src/llm/llm-span.ts";
import { startReceiverProcess } from "./support/otlp-receiver-child.ts";
import { threadCpu, threadCpuSince } from "./support/thread-cpu.ts";

const STEPS = Number(process.env.BENCH_STEPS ?? 20_000);
const WARMUP_STEPS = 2_000;
const SPANS_PER_STEP = 13;
const PACE_STEPS = 8;
const PACE_MS = 10;

const receiver = process.env.OTEL_EXPORTER_OTLP_ENDPOINT ? undefined : await startReceiverProcess();
if (receiver) process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
const traces = startTracing(process.env, "weft-bench", new SecretRedactor(), silentLogger);
if (!traces) throw new Error("tracing did not start (is OTEL_SDK_DISABLED set?)");
const { tracing } = traces;

const profile: LlmProfile = LlmProfileSchema.parse({ id: "bench", name: "Bench", baseUrl: "http://127.0.0.1:1/v1", model: "bench-model" });
const answer: LlmChatResult = {
  message: { role: "assistant", content: "I will compute it." },
  finishReason: "stop",
  model: "bench-model",
  usage: { promptTokens: 100, completionTokens: 20 },
} as LlmChatResult;
const completed = { status: "completed", cached: false, attempts: 1 } as Observation;
const agent = { agentId: "agent-1", conversationId: "conversation-1", profile: { id: "text-helper", name: "Text helper" } };

/** What NodeSpans reads of a node's definition: whether it is idempotent (the interface nodes and core:math are, llm:chat is not). */
const defOf = (idempotent: boolean) => ({ spec: { flags: { idempotent } } }) as NodeDefinition;
const deliberationDefs = [true, true, true, false, true, true, true].map(defOf);
const toolDefs = [defOf(true)];

/** A graph's run span and its node spans, the node at `llmAt` making an LLM call inside its context. */
async function graph(runId: string, nodes: number, llmAt: number): Promise<void> {
  const run = startGraphSpan(tracing, runId, { id: "agent-deliberation", name: "Agent deliberation" }, context.active());
  const spans = new NodeSpans(tracing, run.context, runId, nodes === 7 ? deliberationDefs : toolDefs);
  for (let i = 0; i < nodes; i++) {
    spans.start(i, `node-${i}`, i === llmAt ? "llm:chat" : "core:workflow-input", `${runId}:node-${i}`);
    if (i === llmAt) {
      const caller: LlmCaller = { runId, nodeId: `node-${i}`, invocationId: `${runId}:node-${i}`, agentId: agent.agentId, conversationId: agent.conversationId };
      await spans.run(i, () => traceLlmCall(tracing, profile, { messages: [] }, caller, () => Promise.resolve(answer)));
    } else await spans.run(i, () => Promise.resolve());
    spans.end(i, completed);
  }
  endGraphSpan(run, "completed", undefined);
}

async function step(n: number): Promise<void> {
  await traceAgentStep(tracing, agent, n, async () => {
    await graph(`deliberation-${n}`, 7, 3);
    return traceToolCall(tracing, { toolId: "core:math", toolKind: "node", toolName: "core_math" }, async () => {
      await graph(`tool-${n}`, 1, -1);
      return { ok: true, status: "completed", runId: `tool-${n}` };
    });
  });
  // An agent step waits on I/O for milliseconds: so the exporter keeps up and no span is dropped (a full queue drops
  // them, and a dropped span costs less), pause a little every few steps; idle time costs no CPU.
  if (n % PACE_STEPS === 0) await new Promise((resolve) => setTimeout(resolve, PACE_MS));
  else await new Promise((resolve) => setImmediate(resolve));
}

for (let i = 0; i < WARMUP_STEPS; i++) await step(i);
const cpu0 = process.cpuUsage();
const threads0 = threadCpu();
for (let i = 0; i < STEPS; i++) await step(WARMUP_STEPS + i);
const cpu = process.cpuUsage(cpu0);
const threads = threadCpuSince(threads0, STEPS);
await traces.shutdown();
const cpuUs = (cpu.user + cpu.system) / STEPS;
console.log(
  JSON.stringify({
    bench: "spans",
    steps: STEPS,
    cpu_us_per_step: Math.round(cpuUs),
    cpu_us_per_span: Math.round((cpuUs / SPANS_PER_STEP) * 10) / 10,
    cpu_ms_per_step_by_thread: threads,
    ...(receiver ? { spans_received: (await receiver.stop()).spans, spans_made: (WARMUP_STEPS + STEPS) * SPANS_PER_STEP } : {}),
  }),
);
