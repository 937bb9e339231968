import type { AgentStatus, AgentStepTrace, ConversationMessage } from "@weft/types";
import type { LiveStep } from "./agent-live.ts";
import { traceOfLive, traceOfRecorded, type TraceStep } from "./agent-trace.ts";

/** One entry of a conversation with an agent, as the chat shows it. */
export type ChatItem =
  | { kind: "user"; key: string; text: string; at?: string; pending?: boolean }
  /** The user's reply to the agent's question. */
  | { kind: "reply"; key: string; text: string; at?: string }
  | { kind: "step"; key: string; step: TraceStep }
  /** The agent's final answer. */
  | { kind: "answer"; key: string; text: string }
  | { kind: "question"; key: string; text: string }
  /** The loop stopped without an answer: stuck, out of steps, failed or cancelled. */
  | { kind: "ended"; key: string; status: AgentStatus; reason?: string };

/** Statuses a loop ends in without an answer or a question. */
const ENDED: ReadonlySet<AgentStatus> = new Set(["stuck", "max_steps", "cut_off", "failed", "cancelled"]);

/** The answer the user gave to `ask_user`, read back from its Observation (`… Result: {"answer": "…"}`). */
function replyText(observation: string): string {
  const result = /Result: (\{[\s\S]*\})\s*$/.exec(observation)?.[1];
  if (result) {
    try {
      const parsed: unknown = JSON.parse(result);
      const answer = (parsed as { answer?: unknown }).answer;
      if (typeof answer === "string") return answer;
    } catch {
      // Not the shape an answer has: the Observation as it is.
    }
  }
  return observation;
}

function questionOf(trace: AgentStepTrace): string {
  const asking = trace.actions.find((a) => a.status === "waiting_user");
  const question = asking?.parse.kind === "call" ? asking.parse.params.question : undefined;
  return typeof question === "string" ? question : "";
}

export interface TranscriptInput {
  messages: readonly ConversationMessage[];
  /** Steps under way, not yet in the log. */
  live: readonly LiveStep[];
  /** The message just sent, until the log shows it. */
  pending?: string;
  /** Where the agent stands now (a loop that ran out of steps or was cancelled between steps says so only here). */
  state?: { status: AgentStatus; running: boolean };
}

/**
 * The chat of a conversation: the user's messages, each step (with its actions and Observations),
 * the agent's answers and questions, and how a loop ended. The log holds, after each step's entry,
 * one Observation entry per action except a waiting `ask_user` call; the user's reply to that call
 * is the next Observation entry. Every other user entry is a message of the user.
 */
export function transcriptOf(input: TranscriptInput): ChatItem[] {
  const items: ChatItem[] = [];
  let observations = 0;
  let awaitingReply = false;
  let lastStep = 0;
  for (const m of input.messages) {
    switch (m.role) {
      case "assistant": {
        const t = m.agentStep;
        if (!t) break;
        lastStep = Math.max(lastStep, t.step);
        items.push({ kind: "step", key: `step-${t.step}`, step: traceOfRecorded(t, `step-${t.step}`) });
        // A waiting `ask_approval` call's observation is the decision (an entry of its own, like any observation).
        observations = t.actions.filter((a) => a.status !== "waiting_user").length;
        awaitingReply = t.status === "waiting_user";
        if (t.status === "completed" && t.responseText.trim()) items.push({ kind: "answer", key: `answer-${t.step}`, text: t.responseText.trim() });
        else if (t.status === "waiting_user") items.push({ kind: "question", key: `question-${t.step}`, text: questionOf(t) });
        else if (ENDED.has(t.status)) items.push({ kind: "ended", key: `ended-${t.step}`, status: t.status, ...(t.reason ? { reason: t.reason } : {}) });
        break;
      }
      case "tool":
      case "user":
        if (observations > 0) observations--;
        else if (awaitingReply) {
          awaitingReply = false;
          items.push({ kind: "reply", key: m.id, text: replyText(m.content), at: m.createdAt });
        } else if (m.role === "user") items.push({ kind: "user", key: m.id, text: m.content, at: m.createdAt });
        break;
      case "system":
        break;
      default: {
        const never: never = m;
        return never;
      }
    }
  }
  if (input.pending !== undefined) items.push(awaitingReply ? { kind: "reply", key: "pending", text: input.pending } : { kind: "user", key: "pending", text: input.pending, pending: true });
  for (const s of input.live) if (s.step > lastStep) items.push({ kind: "step", key: `live-${s.step}`, step: traceOfLive(s) });
  const state = input.state;
  const last = items[items.length - 1];
  if (state && !state.running && input.pending === undefined && ENDED.has(state.status) && last?.kind === "step") items.push({ kind: "ended", key: "ended-now", status: state.status });
  return items;
}
