/**
 * Context building cost: the time `buildContext` takes to turn a conversation log of N messages
 * into the next request (agent mode, persona, default budget of 80 messages / 120,000 characters,
 * with a token cap), for N = 1,000, 10,000 and 100,000. The logs mix user turns, assistants with
 * one or two tool calls, tool results (some large enough to be previewed), final answers, LLM
 * errors and UI-only entries. Prints one JSON line per N: the median of 15 timed builds after 5
 * warm-up builds. Target: ≤ 20 ms at 100,000 messages, growing at most linearly.
 */
import { buildContext, assistantMessage, llmErrorMessage, toolResultMessage, userMessage } from "../packages/agent-runtime/src/index.ts";
import type { ConversationMessage } from "../packages/types/src/index.ts";

const SIZES = (process.env.BENCH_SIZES ?? "1000,10000,100000").split(",").map(Number);
const WARMUP = 5;
const RUNS = 15;

/** A deterministic log of exactly `size` entries. */
function makeLog(size: number): ConversationMessage[] {
  let seed = 42;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const words = (n: number) => Array.from({ length: n }, (_, i) => ["weave", "thread", "loom", "pattern", "colour", "warp", "weft"][(i + n) % 7]).join(" ");
  const log: ConversationMessage[] = [];
  let n = 0;
  const meta = () => ({ id: `m${n}`, createdAt: new Date(1_700_000_000_000 + n++ * 1_000).toISOString(), mode: "agent" as const });
  while (log.length < size) {
    log.push(userMessage(words(10 + Math.floor(random() * 30)), meta()));
    const calls = 1 + Math.floor(random() * 2);
    const toolCalls = Array.from({ length: calls }, (_, j) => ({
      id: `call_${n}_${j}`,
      type: "function" as const,
      function: { name: j === 0 ? "read_file" : "list_dir", arguments: JSON.stringify({ path: `@project/docs/file-${n}.md` }) },
    }));
    log.push(assistantMessage({ text: "", toolCalls }, meta()));
    for (const call of toolCalls) {
      const large = random() < 0.1;
      const result = { ok: true, path: "@project/docs/x.md", content: large ? "x".repeat(12_000) : words(40) };
      const message = toolResultMessage({ toolCallId: call.id, result, toolName: call.function.name }, meta());
      log.push(large ? { ...message, fullOutputPath: `@state/logs/tool-results/${call.id}.json` } : message);
    }
    const roll = random();
    if (roll < 0.05) log.push(llmErrorMessage({ code: "TIMEOUT", message: "No response within 60000 ms.", hint: "Raise the timeout.", partialText: words(15) }, meta()));
    else if (roll < 0.1) log.push({ ...assistantMessage({ text: "rendered widget", toolCalls: [] }, meta()), includeInContext: false });
    else log.push(assistantMessage({ text: words(30 + Math.floor(random() * 40)), toolCalls: [] }, meta()));
  }
  return log.slice(0, size);
}

for (const size of SIZES) {
  const history = makeLog(size);
  const build = () => buildContext({ mode: "agent", history, persona: "You are Mira, the innkeeper.", budget: { maxTokens: 32_000 } });
  for (let i = 0; i < WARMUP; i++) build();
  const times: number[] = [];
  let kept = 0;
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const result = build();
    times.push(performance.now() - started);
    kept = result.debug.keptMessages;
  }
  if (kept === 0) throw new Error(`context bench: nothing kept from ${size} messages`);
  times.sort((a, b) => a - b);
  const ms = Math.round(times[Math.floor(RUNS / 2)] * 100) / 100;
  console.log(JSON.stringify({ bench: "context", messages: size, ms }));
}
