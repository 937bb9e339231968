import {
  ContextBudgetSchema,
  type BuildContextInput,
  type BuildContextResult,
  type ChatMessage,
  type ContextBudget,
  type ContextDebug,
  type ConversationAssistantMessage,
  type ConversationMessage,
} from "@weft/types";
import { toChatMessage, type ToChatOptions } from "./messages.ts";
import { buildSystemPrefix } from "./system-prefix.ts";
import { estimateTokens, MESSAGE_OVERHEAD_TOKENS } from "./token-estimate.ts";

/** What a kept or candidate group of messages costs against the budget. */
interface Cost {
  messages: number;
  chars: number;
  tokens: number;
}

/** One protocol unit: a user message, a plain assistant message, or an assistant with tool_calls and all its results. */
interface Unit {
  messages: ChatMessage[];
  /** Log indices of the entries it uses (synthetic results have none). */
  indices: number[];
  /** Call ids that got a synthetic "aborted" result. */
  synthetic: string[];
  cost: Cost;
}

// Per-entry outcome, filled during the backward walk and read once, in log order, for the debug lists;
// 0, the array's initial value, marks an entry the walk left out (counted as excluded).
const KEPT = 1;
const DROPPED = 2;
const ORPHAN = 3;

/** The content of the result a tool call gets when the log has none (e.g. the run was interrupted). */
export function abortedToolResult(callId: string, toolName: string): string {
  return JSON.stringify({
    ok: false,
    error: { code: "E_ABORTED", message: `aborted: the call ${callId} to ${toolName} ended without a result (it was interrupted or cancelled).` },
  });
}

const included = (m: ConversationMessage) => m.includeInContext !== false && m.role !== "system";
const hasToolCalls = (m: ConversationMessage): m is ConversationAssistantMessage & { tool_calls: NonNullable<ConversationAssistantMessage["tool_calls"]> } =>
  m.role === "assistant" && m.tool_calls !== undefined && m.tool_calls.length > 0;

const DEFAULT_BUDGET: ContextBudget = ContextBudgetSchema.parse({});
/** Budgets checked before, by object: an agent hands the same one to every step. */
const budgets = new WeakMap<object, ContextBudget>();

function budgetOf(input: BuildContextInput["budget"]): ContextBudget {
  if (input === undefined) return DEFAULT_BUDGET;
  let budget = budgets.get(input);
  if (!budget) budgets.set(input, (budget = ContextBudgetSchema.parse(input)));
  return budget;
}

/**
 * Builds the `messages[]` of the next LLM request from a conversation log (seed 003 §4.2).
 *
 * The system prefix depends on the mode only; the history is the newest window of protocol units
 * that fits the budget, trimmed oldest first and never splitting an assistant's tool_calls from
 * their results (a call without a result gets a synthetic "aborted" one, a result without its
 * call is never sent). The latest user message is always kept, even when it lies before the
 * window. One backward pass, stopping the costly work once the window is full: linear time.
 */
export function buildContext(input: BuildContextInput): BuildContextResult {
  const budget = budgetOf(input.budget);
  const prefix = buildSystemPrefix(input);
  const history = input.history;
  const n = history.length;
  const convert: ToChatOptions = {
    passBackReasoning: input.passBackReasoning === true,
    toolOutputThresholdChars: budget.toolOutputThresholdChars,
    toolOutputPreviewChars: budget.toolOutputPreviewChars,
  };
  const convertKey = `${convert.passBackReasoning}|${convert.toolOutputThresholdChars}|${convert.toolOutputPreviewChars}`;

  let latestUser = -1;
  for (let i = n - 1; i >= 0; i--) {
    if (history[i].role === "user" && included(history[i])) {
      latestUser = i;
      break;
    }
  }

  const state = new Uint8Array(n);
  /** Tool results seen (newer) whose assistant has not been reached yet: call id → log index. */
  const pending = new Map<string, number>();
  const kept: Unit[] = [];
  let pinned: Unit | undefined;
  const used: Cost = { messages: 0, chars: 0, tokens: 0 };
  let limitedBy: ContextDebug["limitedBy"];

  for (let i = n - 1; i >= 0; i--) {
    const entry = history[i];
    if (!included(entry)) continue;
    if (entry.role === "tool") {
      // Past the window every result is dropped with its call. Inside it, a newer result for
      // the same call wins and an older duplicate is never sent.
      if (limitedBy !== undefined || pending.has(entry.tool_call_id)) state[i] = DROPPED;
      else pending.set(entry.tool_call_id, i);
      continue;
    }
    if (limitedBy !== undefined && i !== latestUser) {
      state[i] = DROPPED;
      // Results seen inside the window whose call lies past it are dropped too, not orphans.
      if (pending.size > 0 && hasToolCalls(entry)) {
        for (const call of entry.tool_calls) {
          const at = pending.get(call.id);
          if (at !== undefined) {
            state[at] = DROPPED;
            pending.delete(call.id);
          }
        }
      }
      continue;
    }

    const unit = makeUnit(history, i, pending, convert, convertKey);
    const over = limitedBy ?? exceeded(used, unit.cost, budget);
    if (over === undefined) {
      kept.push(unit);
      used.messages += unit.cost.messages;
      used.chars += unit.cost.chars;
      used.tokens += unit.cost.tokens;
      for (const at of unit.indices) state[at] = KEPT;
    } else {
      limitedBy = over;
      const isPinned = i === latestUser;
      if (isPinned) pinned = unit;
      for (const at of unit.indices) state[at] = isPinned ? KEPT : DROPPED;
    }
  }
  for (const at of pending.values()) state[at] = ORPHAN;

  const historyMessages: ChatMessage[] = pinned ? [...pinned.messages] : [];
  const syntheticCallIds: string[] = [];
  for (let u = kept.length - 1; u >= 0; u--) {
    for (const m of kept[u].messages) historyMessages.push(m);
    syntheticCallIds.push(...kept[u].synthetic);
  }

  const keptIds: string[] = [];
  const droppedIds: string[] = [];
  const orphanIds: string[] = [];
  const previewedIds: string[] = [];
  let excluded = 0;
  for (let i = 0; i < n; i++) {
    switch (state[i]) {
      case KEPT: {
        const m = history[i];
        keptIds.push(m.id);
        if (m.role === "tool" && m.content.length > budget.toolOutputThresholdChars) previewedIds.push(m.id);
        break;
      }
      case DROPPED:
        droppedIds.push(history[i].id);
        break;
      case ORPHAN:
        orphanIds.push(history[i].id);
        break;
      default:
        excluded++;
    }
  }

  const historyCost = pinned ? add(used, pinned.cost) : used;
  const prefixCost = costOf(prefix);
  const debug: ContextDebug = {
    mode: input.mode,
    historyMessages: n,
    excludedMessages: excluded,
    keptMessages: keptIds.length,
    droppedMessages: droppedIds.length + orphanIds.length,
    prefixMessages: prefix.length,
    keptIds,
    droppedIds,
    orphanToolResultIds: orphanIds,
    syntheticToolResultCallIds: syntheticCallIds,
    previewedToolResultIds: previewedIds,
    ...(pinned ? { pinnedLatestUserId: history[latestUser].id } : {}),
    ...(limitedBy !== undefined ? { limitedBy } : {}),
    historyChars: historyCost.chars,
    historyEstimatedTokens: historyCost.tokens,
    chars: historyCost.chars + prefixCost.chars,
    estimatedTokens: historyCost.tokens + prefixCost.tokens,
    budget,
  };
  return { messages: [...prefix, ...historyMessages], debug };
}

/** A log entry's chat message and its cost, for the conversion options of `key`. */
interface Converted {
  key: string;
  message: ChatMessage;
  cost: Cost;
}

/**
 * Conversions of log entries met before. An agent's log is read once and shared between its steps
 * (`conversationHistory`), so each step converts and costs only the entries new since the last one,
 * and hands on the same message objects: what stores run records by value identity (the journal's
 * compaction of the step's events) then finds them known instead of serializing and hashing them again.
 */
const conversions = new WeakMap<ConversationMessage, Converted>();

function converted(entry: ConversationMessage, convert: ToChatOptions, key: string): Converted {
  const known = conversions.get(entry);
  if (known?.key === key) return known;
  const message = toChatMessage(entry, convert);
  const made = { key, message, cost: costOf([message]) };
  conversions.set(entry, made);
  return made;
}

function makeUnit(history: readonly ConversationMessage[], i: number, pending: Map<string, number>, convert: ToChatOptions, key: string): Unit {
  const entry = history[i];
  const first = converted(entry, convert, key);
  const messages: ChatMessage[] = [first.message];
  let cost = first.cost;
  const indices = [i];
  const synthetic: string[] = [];
  if (hasToolCalls(entry)) {
    for (const call of entry.tool_calls) {
      const at = pending.get(call.id);
      if (at === undefined) {
        const aborted: ChatMessage = { role: "tool", tool_call_id: call.id, content: abortedToolResult(call.id, call.function.name) };
        messages.push(aborted);
        cost = add(cost, costOf([aborted]));
        synthetic.push(call.id);
        continue;
      }
      pending.delete(call.id);
      const result = converted(history[at], convert, key);
      messages.push(result.message);
      cost = add(cost, result.cost);
      indices.push(at);
    }
  }
  return { messages, indices, synthetic, cost };
}

function costOf(messages: readonly ChatMessage[]): Cost {
  let chars = 0;
  let tokens = 0;
  for (const m of messages) {
    const text = m.content ?? "";
    chars += text.length;
    tokens += MESSAGE_OVERHEAD_TOKENS + estimateTokens(text);
    if (m.role === "assistant") {
      for (const call of m.tool_calls ?? []) {
        chars += call.function.name.length + call.function.arguments.length;
        tokens += estimateTokens(call.function.name) + estimateTokens(call.function.arguments);
      }
      if (m.reasoning_content) {
        chars += m.reasoning_content.length;
        tokens += estimateTokens(m.reasoning_content);
      }
    }
  }
  return { messages: messages.length, chars, tokens };
}

function exceeded(used: Cost, cost: Cost, budget: ContextBudget): ContextDebug["limitedBy"] {
  if (used.messages + cost.messages > budget.maxMessages) return "maxMessages";
  if (used.chars + cost.chars > budget.maxChars) return "maxChars";
  if (budget.maxTokens !== undefined && used.tokens + cost.tokens > budget.maxTokens) return "maxTokens";
  return undefined;
}

function add(a: Cost, b: Cost): Cost {
  return { messages: a.messages + b.messages, chars: a.chars + b.chars, tokens: a.tokens + b.tokens };
}
