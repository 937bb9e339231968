import type { ConversationMessage } from "@weft/types";

/** How many of the latest turns go to the model verbatim (seed 001 §5.2: "latest 6 raw + 1 older summary"). */
export const RECENT_TURNS = 6;
const SUMMARY_MAX_CHARS = 4000;
const QUOTE_CHARS = 160;

export interface HistoryWindow {
  /** The latest turns, verbatim and protocol-complete (a turn starts at a user message). */
  recent: ConversationMessage[];
  /** One local-rule summary of the older turns; absent when there are none. */
  summary?: string;
  olderTurns: number;
}

function quote(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return JSON.stringify(flat.length > QUOTE_CHARS ? flat.slice(0, QUOTE_CHARS) + "…" : flat);
}

/** The outcome of one tool result as a few words: `builder.change.stage ok`, `builder.change.validate AI_REF_WORKFLOW_NOT_FOUND`. */
function toolOutcome(message: Extract<ConversationMessage, { role: "tool" }>): string {
  let outcome: string;
  try {
    const parsed = JSON.parse(message.content) as { ok?: boolean; error?: { code?: string }; valid?: boolean; changeSetId?: string };
    if (parsed.ok === false) outcome = `failed ${parsed.error?.code ?? ""}`.trim();
    else if (parsed.valid === false) outcome = "invalid";
    else if (parsed.changeSetId) outcome = `ok ${parsed.changeSetId}`;
    else outcome = "ok";
  } catch {
    outcome = "done";
  }
  return `${message.toolName ?? "tool"} ${outcome}`;
}

function summariseTurn(turn: readonly ConversationMessage[]): string {
  const parts: string[] = [];
  const tools: string[] = [];
  let reply = "";
  for (const m of turn) {
    if (m.includeInContext === false) continue;
    if (m.role === "user") parts.push(`user ${quote(m.content)}`);
    else if (m.role === "assistant" && m.content) reply = m.content;
    else if (m.role === "tool") tools.push(toolOutcome(m));
  }
  if (tools.length > 0) parts.push(`tools: ${tools.join(", ")}`);
  if (reply) parts.push(`builder ${quote(reply)}`);
  return `- ${parts.join("; ")}`;
}

/**
 * Splits a session's log into the latest `keepTurns` turns, sent as they are, and one summary of
 * the older turns built by a local rule (no LLM call): what the user asked, which tools ran with
 * what outcome, what the Builder answered. Turns never split a tool call from its result.
 */
export function historyWindow(log: readonly ConversationMessage[], keepTurns = RECENT_TURNS): HistoryWindow {
  const turns: ConversationMessage[][] = [];
  for (const m of log) {
    if ((m.role === "user" && m.includeInContext !== false) || turns.length === 0) turns.push([m]);
    else turns[turns.length - 1].push(m);
  }
  const older = turns.slice(0, Math.max(0, turns.length - keepTurns));
  const recent = turns.slice(older.length).flat();
  if (older.length === 0) return { recent, olderTurns: 0 };

  const lines: string[] = [];
  let used = 0;
  let omitted = 0;
  for (let i = older.length - 1; i >= 0; i--) {
    const line = summariseTurn(older[i]);
    if (used + line.length > SUMMARY_MAX_CHARS) {
      omitted = i + 1;
      break;
    }
    lines.unshift(line);
    used += line.length + 1;
  }
  const head = `Summary of ${older.length} earlier turn${older.length === 1 ? "" : "s"} of this session${omitted ? ` (the oldest ${omitted} left out)` : ""}:`;
  return { recent, summary: [head, ...lines].join("\n"), olderTurns: older.length };
}
