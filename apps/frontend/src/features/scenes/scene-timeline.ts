import { clip } from "../../shared/lib/brief.ts";
import type { AgentTrigger, SceneLogEntry, SceneStatus, SceneStatusReason, SceneStepView, WorldChange } from "@weft/types";

/** One line of the scene's timeline: the session log read for people, with the agents' steps in it. */
export type TimelineItem =
  | { kind: "status"; key: string; ts: number; status: SceneStatus; reason?: SceneStatusReason }
  /** A user message; `to` is an agent instance id or "all" (one item for all the agents it reached). */
  | { kind: "user"; key: string; ts: number; to: string; text: string }
  | { kind: "event"; key: string; ts: number; topic: string; source: string; payload: unknown }
  | { kind: "world"; key: string; ts: number; change: WorldChange }
  | { kind: "private"; key: string; ts: number; instanceId: string; op: "set" | "delete"; path: string; after?: unknown }
  | { kind: "queued"; key: string; ts: number; instanceId: string; trigger: AgentTrigger }
  | { kind: "dropped"; key: string; ts: number; instanceId: string; trigger: AgentTrigger; how: string }
  | { kind: "woke"; key: string; ts: number; instanceId: string; trigger?: AgentTrigger }
  | { kind: "finished"; key: string; ts: number; instanceId: string; ok: boolean; error?: string }
  | { kind: "step"; key: string; ts: number; step: SceneStepView };

export type TimelineKind = TimelineItem["kind"];

/** What the compact timeline shows: what was said, done and changed; the rest is in the full one. */
const COMPACT: ReadonlySet<TimelineKind> = new Set(["status", "user", "event", "world", "dropped", "step"]);

export function isCompact(item: TimelineItem): boolean {
  return COMPACT.has(item.kind) || (item.kind === "finished" && !item.ok);
}

/**
 * The timeline of a session: its log entries and its agents' recorded steps, in time order (a step
 * at its start, so the world changes and events of its action come after it). User messages sent to
 * all agents show once. The raw `llm.output` and `action.completed` entries are left out: each step shows its output and actions.
 */
export function buildTimeline(entries: readonly SceneLogEntry[], steps: readonly SceneStepView[]): TimelineItem[] {
  const triggers = new Map<string, AgentTrigger>();
  const broadcasts = new Set<string>();
  const items: TimelineItem[] = [];
  for (const e of entries) {
    const key = `log-${e.seq}`;
    switch (e.kind) {
      case "status":
        items.push({ kind: "status", key, ts: e.ts, status: e.status, ...(e.reason ? { reason: e.reason } : {}) });
        break;
      case "event":
        // A user message is also published as a `user.message` event: the queued trigger shows it.
        if (e.source !== "user") items.push({ kind: "event", key, ts: e.ts, topic: e.topic, source: e.source, payload: e.payload });
        break;
      case "trigger.queued": {
        const t = e.trigger;
        triggers.set(t.id, t);
        if (t.kind !== "user") items.push({ kind: "queued", key, ts: e.ts, instanceId: e.instanceId, trigger: t });
        else if (t.to !== "all") items.push({ kind: "user", key, ts: t.at, to: t.to, text: t.text });
        else {
          const id = `${t.at}|${t.text}`;
          if (!broadcasts.has(id)) items.push({ kind: "user", key, ts: t.at, to: "all", text: t.text });
          broadcasts.add(id);
        }
        break;
      }
      case "trigger.coalesced":
        items.push({ kind: "dropped", key, ts: e.ts, instanceId: e.instanceId, trigger: e.trigger, how: "merged into a waiting trigger" });
        break;
      case "trigger.dropped":
        items.push({ kind: "dropped", key, ts: e.ts, instanceId: e.instanceId, trigger: e.trigger, how: `dropped (mailbox full, ${e.policy})` });
        break;
      case "deliberation.started": {
        const trigger = triggers.get(e.triggerId);
        items.push({ kind: "woke", key, ts: e.ts, instanceId: e.instanceId, ...(trigger ? { trigger } : {}) });
        break;
      }
      case "deliberation.finished":
        items.push({ kind: "finished", key, ts: e.ts, instanceId: e.instanceId, ok: e.ok, ...(e.error ? { error: e.error } : {}) });
        break;
      case "world.changed":
        items.push({ kind: "world", key, ts: e.ts, change: e.change });
        break;
      case "private.changed":
        items.push({ kind: "private", key, ts: e.ts, instanceId: e.instanceId, op: e.op, path: e.path, ...(e.after !== undefined ? { after: e.after } : {}) });
        break;
      case "llm.output":
      case "action.completed":
        break;
      default: {
        const never: never = e;
        return never;
      }
    }
  }
  for (const s of steps) items.push({ kind: "step", key: `step-${s.conversationId}-${s.trace.step}`, ts: s.trace.startedAt, step: s });
  // Stable: entries keep their log order when times are equal, and come before a step starting then.
  return items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => a.item.ts - b.item.ts || a.index - b.index)
    .map((x) => x.item);
}

/** The world changes of the session, newest first. */
export function worldHistory(entries: readonly SceneLogEntry[]): WorldChange[] {
  const out: WorldChange[] = [];
  for (const e of entries) if (e.kind === "world.changed") out.push(e.change);
  return out.reverse();
}

/** A short description of what woke an agent. */
export function describeTrigger(trigger: AgentTrigger): string {
  switch (trigger.kind) {
    case "user":
      return `your message “${clip(trigger.text, 80)}”`;
    case "event":
      return `event ${trigger.topic} from ${trigger.source}`;
    case "timer":
      return `timer ${trigger.timerId} (tick ${trigger.tick})`;
    default: {
      const never: never = trigger;
      return never;
    }
  }
}
