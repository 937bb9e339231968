import type { AgentTrigger, SceneLogEntry } from "@weft/types";
import { eventSignature, triggerSignature } from "./recorded-llm.ts";

/** A replay script with the triggers the record vouches for, and what it left out. */
export interface CheckedScript {
  script: Map<string, AgentTrigger[]>;
  divergences: string[];
}

/**
 * Keeps only the event triggers whose event the record itself published. A replay deliberates the
 * recorded triggers without routing live events, so a log whose trigger was altered or whose event
 * was cut would otherwise be replayed as if someone had sent it; such a trigger is reported and
 * left out, and the agent's outputs recorded for it stay unused.
 */
export function checkScript(log: readonly SceneLogEntry[], script: ReadonlyMap<string, readonly AgentTrigger[]>): CheckedScript {
  const published = new Set<string>();
  for (const entry of log) {
    if (entry.kind === "event") published.add(eventSignature(entry.topic, entry.source, entry.payload));
  }
  const checked = new Map<string, AgentTrigger[]>();
  const divergences: string[] = [];
  for (const [instanceId, triggers] of script) {
    const kept: AgentTrigger[] = [];
    for (const trigger of triggers) {
      if (trigger.kind === "event" && !published.has(triggerSignature(trigger))) {
        divergences.push(`Agent "${instanceId}" took trigger [${triggerSignature(trigger)}], but the record holds no such event: it is not replayed.`);
        continue;
      }
      kept.push(trigger);
    }
    checked.set(instanceId, kept);
  }
  return { script: checked, divergences };
}
