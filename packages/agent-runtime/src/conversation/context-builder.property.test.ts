import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { ChatMessage, ContextBudgetInput, ConversationMessage } from "@weft/types";
import { buildContext } from "./context-builder.ts";
import { assistantMessage, llmErrorMessage, toolResultMessage, userMessage } from "./messages.ts";

/** Building blocks of a log, including the broken shapes real logs end up with. */
type Event =
  | { t: "user"; text: string; hidden: boolean }
  | { t: "assistant"; text: string }
  | { t: "calls"; results: boolean[]; shuffle: boolean; interleave: boolean; duplicate: boolean; size: number }
  | { t: "orphan" }
  | { t: "error"; partial: string }
  | { t: "notice" };

const text = fc.string({ maxLength: 120 });
const event: fc.Arbitrary<Event> = fc.oneof(
  fc.record({ t: fc.constant("user" as const), text, hidden: fc.boolean() }),
  fc.record({ t: fc.constant("assistant" as const), text }),
  fc.record({
    t: fc.constant("calls" as const),
    results: fc.array(fc.boolean(), { minLength: 1, maxLength: 3 }),
    shuffle: fc.boolean(),
    interleave: fc.boolean(),
    duplicate: fc.boolean(),
    size: fc.integer({ min: 0, max: 3_000 }),
  }),
  fc.constant({ t: "orphan" as const }),
  fc.record({ t: fc.constant("error" as const), partial: text }),
  fc.constant({ t: "notice" as const }),
);

function toHistory(events: Event[]): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  let n = 0;
  const meta = () => ({ id: `m${n}`, createdAt: new Date(1_700_000_000_000 + n++).toISOString() });
  events.forEach((e, k) => {
    switch (e.t) {
      case "user":
        out.push({ ...userMessage(e.text || "?", meta()), ...(e.hidden ? { includeInContext: false } : {}) });
        break;
      case "assistant":
        out.push(assistantMessage({ text: e.text, toolCalls: [] }, meta()));
        break;
      case "calls": {
        const calls = e.results.map((_, j) => ({ id: `c${k}_${j}`, type: "function" as const, function: { name: `tool${j}`, arguments: `{"n":${j}}` } }));
        out.push(assistantMessage({ text: "", toolCalls: calls }, meta()));
        if (e.interleave) out.push(userMessage("meanwhile", meta()));
        const answered = calls.filter((_, j) => e.results[j]);
        const order = e.shuffle ? [...answered].reverse() : answered;
        for (const c of order) out.push(toolResultMessage({ toolCallId: c.id, result: "r".repeat(e.size) }, meta()));
        if (e.duplicate && answered.length > 0) out.push(toolResultMessage({ toolCallId: answered[0].id, result: "again" }, meta()));
        break;
      }
      case "orphan":
        out.push(toolResultMessage({ toolCallId: `ghost${k}`, result: "lost" }, meta()));
        break;
      case "error":
        out.push(llmErrorMessage({ code: "NETWORK", message: "dropped", hint: "retry", ...(e.partial ? { partialText: e.partial } : {}) }, meta()));
        break;
      case "notice":
        out.push({ ...meta(), role: "system", content: "notice" });
        break;
    }
  });
  return out;
}

const budget: fc.Arbitrary<ContextBudgetInput> = fc.record(
  {
    maxMessages: fc.integer({ min: 1, max: 40 }),
    maxChars: fc.integer({ min: 1, max: 6_000 }),
    maxTokens: fc.integer({ min: 1, max: 2_000 }),
    toolOutputThresholdChars: fc.integer({ min: 50, max: 5_000 }),
    toolOutputPreviewChars: fc.integer({ min: 10, max: 500 }),
  },
  { requiredKeys: [] },
);

/** Every assistant tool_calls is followed at once by exactly its results, in order; no other tool message exists. */
function protocolViolation(messages: ChatMessage[]): string | null {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m.role === "tool") return `tool result ${m.tool_call_id} at ${i} does not follow its assistant tool_calls`;
    if (m.role === "assistant" && m.tool_calls && m.tool_calls.length > 0) {
      for (const [j, c] of m.tool_calls.entries()) {
        const r = messages[i + 1 + j];
        if (r?.role !== "tool" || r.tool_call_id !== c.id) return `call ${c.id} at ${i} has no result right after it`;
      }
      i += m.tool_calls.length;
    }
  }
  return null;
}

const runs = { numRuns: 400 };

describe("buildContext invariants (property-based)", () => {
  it("never sends an orphan result or an unanswered call, always keeps the latest user message, and respects the budget", () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), budget, (events, b) => {
        const history = toHistory(events);
        const { messages, debug } = buildContext({ mode: "agent", history, budget: b, persona: "p" });
        const sent = messages.slice(debug.prefixMessages);

        expect(protocolViolation(sent)).toBeNull();

        const included = history.filter((m) => m.role !== "system" && m.includeInContext !== false);
        const latestUser = [...included].reverse().find((m) => m.role === "user");
        if (latestUser) {
          expect(debug.keptIds).toContain(latestUser.id);
          expect(sent).toContainEqual({ role: "user", content: (latestUser as { content: string }).content });
        }

        // kept, dropped and orphans partition what may enter the context.
        const all = [...debug.keptIds, ...debug.droppedIds, ...debug.orphanToolResultIds];
        expect(new Set(all).size).toBe(all.length);
        expect(new Set(all)).toEqual(new Set(included.map((m) => m.id)));
        expect(debug.excludedMessages).toBe(history.length - included.length);

        // Only the pinned latest user message may exceed the budget.
        const full = { maxMessages: 80, maxChars: 120_000, ...b };
        const pinnedCount = debug.pinnedLatestUserId ? 1 : 0;
        expect(sent.length - pinnedCount).toBeLessThanOrEqual(full.maxMessages);
        if (!debug.pinnedLatestUserId) {
          expect(debug.historyChars).toBeLessThanOrEqual(full.maxChars);
          if (full.maxTokens !== undefined) expect(debug.historyEstimatedTokens).toBeLessThanOrEqual(full.maxTokens);
        }

        // The window is the newest part of the log: nothing newer than a kept entry was trimmed away.
        const index = new Map(history.map((m, i) => [m.id, i]));
        const windowStart = Math.min(...debug.keptIds.filter((id) => id !== debug.pinnedLatestUserId).map((id) => index.get(id) ?? Infinity));
        for (const id of debug.droppedIds) {
          const m = history[index.get(id) ?? -1];
          if (m.role !== "tool") expect(index.get(id)).toBeLessThan(windowStart);
        }

        // Synthetic results only for calls the log never answered.
        const answered = new Set(history.flatMap((m) => (m.role === "tool" ? [m.tool_call_id] : [])));
        for (const callId of debug.syntheticToolResultCallIds) expect(answered.has(callId)).toBe(false);
      }),
      runs,
    );
  });

  it("is deterministic, and a mode switch changes only the prefix", () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 30 }), budget, (events, b) => {
        const history = toHistory(events);
        const chat = buildContext({ mode: "chat", history, budget: b, persona: "p" });
        const again = buildContext({ mode: "chat", history, budget: b, persona: "p" });
        const run = buildContext({ mode: "run", history, budget: b, persona: "p", runContext: { workflow: "w" } });
        expect(again).toEqual(chat);
        expect(run.messages.slice(run.debug.prefixMessages)).toEqual(chat.messages.slice(chat.debug.prefixMessages));
        expect(run.debug.keptIds).toEqual(chat.debug.keptIds);
      }),
      { numRuns: 200 },
    );
  });
});
