import type { AgentTrigger } from "@weft/types";
import { safeJson } from "../action/json.ts";
import type { Deliberate, RecordedLlm } from "../scene/index.ts";
import type { AgentInstance } from "./agent-instance.ts";

/** What an agent is told when a trigger wakes it: the user's text, or a short shell naming the event or timer. */
export function triggerMessage(trigger: AgentTrigger): string {
  const merged = trigger.coalesced > 0 ? `\n(${trigger.coalesced} earlier trigger${trigger.coalesced === 1 ? " was" : "s were"} merged into this one)` : "";
  switch (trigger.kind) {
    case "user":
      return `${trigger.text}${merged}`;
    case "event":
      return `EVENT\n- topic: ${trigger.topic}\n- from: ${trigger.source}\n- payload: ${safeJson(trigger.payload)}${merged}`;
    case "timer":
      return `TIMER\n- timer: ${trigger.timerId}\n- tick: ${trigger.tick}\n${trigger.message}${merged}`;
    default: {
      const never: never = trigger;
      return never;
    }
  }
}

export interface SceneDeliberateOptions {
  /** Replaying a recorded session: tells the recorded LLM which trigger each deliberation is for. */
  replay?: RecordedLlm;
}

/**
 * The scene's `deliberate` hook run by AgentInstances: each trigger becomes a message to the
 * instance's agent, whose loop then uses the scene's world, events and private state. Every step's
 * model output goes into the scene log as it arrives (for replay and for resuming after a crash). A loop that fails (not one that stops on an
 * answer, a question or its limits) fails the deliberation, so the scene log records why.
 */
export function sceneDeliberate(agentFor: (instanceId: string) => AgentInstance | undefined, options: SceneDeliberateOptions = {}): Deliberate {
  return async (instanceId, trigger, context) => {
    const agent = agentFor(instanceId);
    if (!agent) throw new Error(`The scene has no agent instance "${instanceId}" to wake.`);
    options.replay?.begin(instanceId, trigger);
    // Each model answer is recorded in the scene log as it arrives (context.llm), so a crash mid-loop keeps what was answered.
    const sent = await agent.sendMessage(triggerMessage(trigger), { signal: context.signal, services: context.services, llm: context.llm });
    if (!sent.ok) throw new Error(`${sent.error.code}: ${sent.error.message}`);
    if (sent.value.status === "failed") throw new Error(sent.value.error ? `${sent.value.error.code}: ${sent.value.error.message}` : (sent.value.reason ?? "the agent's loop failed"));
  };
}
