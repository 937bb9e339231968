import type { AgentTrigger, SceneLogEntry } from "@weft/types";

/**
 * Which triggers each agent instance deliberated in a recorded session, in the order it took them.
 *
 * Which trigger a mailbox takes next depends on timing once queues overflow and coalesce: the same
 * model outputs can make a replay fold the town's chatter differently than the session did. A
 * replay therefore does not route events to mailboxes; each agent deliberates exactly these
 * triggers, as they were started (a merged trigger with its `coalesced` count), and
 * `RecordedEffectOrder` keeps their world writes and publishes in the recorded order.
 *
 * A trigger started again after a restore (`resumed`) is one deliberation, taken once.
 */
export function recordedTriggerScript(log: readonly SceneLogEntry[]): Map<string, AgentTrigger[]> {
  const queued = new Map<string, AgentTrigger>();
  const merged = new Map<string, AgentTrigger>();
  const script = new Map<string, AgentTrigger[]>();
  for (const entry of log) {
    switch (entry.kind) {
      case "trigger.queued":
        queued.set(key(entry.instanceId, entry.trigger.id), entry.trigger);
        break;
      case "trigger.coalesced":
        merged.set(key(entry.instanceId, entry.trigger.id), entry.trigger);
        break;
      case "deliberation.started": {
        const k = key(entry.instanceId, entry.triggerId);
        const trigger = merged.get(k) ?? queued.get(k);
        if (!trigger) break;
        const list = script.get(entry.instanceId) ?? [];
        if (list.at(-1)?.id !== trigger.id) list.push(withoutResume(trigger));
        script.set(entry.instanceId, list);
        break;
      }
      case "status":
      case "event":
      case "trigger.dropped":
      case "deliberation.finished":
      case "world.changed":
      case "private.changed":
      case "llm.output":
      case "action.completed":
        break;
      default: {
        const never: never = entry;
        return never;
      }
    }
  }
  return script;
}

const key = (instanceId: string, triggerId: string) => `${instanceId}\u0000${triggerId}`;

function withoutResume(trigger: AgentTrigger): AgentTrigger {
  if (!trigger.resumed) return trigger;
  const { resumed: _resumed, ...rest } = trigger;
  return rest as AgentTrigger;
}
