import type { AgentStepTrace, AgentTrigger } from "@weft/types";
import { safeJson } from "../action/json.ts";
import { DeliberationOverBudget, type Deliberate, type RecordedLlm } from "../scene/index.ts";
import type { AgentInstance } from "./agent-instance.ts";
import type { AgentRunOptions } from "./agent-instance-options.ts";

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
  /** The user the session's work is done for (who started it): its tool calls name them in the audit log. */
  userId?: () => string | undefined;
}

/**
 * The scene's `deliberate` hook run by AgentInstances: each trigger becomes a message to the
 * instance's agent (named after the trigger), whose loop then uses the scene's world, events and
 * private state. Every step's model output and tool call goes into the scene log as it happens, and
 * every append to the conversation waits until the scene has committed what came before it. A
 * trigger delivered again after a crash whose message the conversation already holds is not sent
 * again: the loop goes on after the steps recorded there (their effects, calls and `agent.*` events
 * are not made again), with the recorded answers and call outcomes of the step that was cut off.
 * A loop that fails (not one that stops on an answer, a question or its limits) fails the
 * deliberation, so the scene log records why.
 */
export function sceneDeliberate(agentFor: (instanceId: string) => AgentInstance | undefined, options: SceneDeliberateOptions = {}): Deliberate {
  return async (instanceId, trigger, context) => {
    const agent = agentFor(instanceId);
    if (!agent) throw new Error(`The scene has no agent instance "${instanceId}" to wake.`);
    options.replay?.begin(instanceId, trigger);
    const userId = options.userId?.();
    const run: AgentRunOptions = {
      signal: context.signal,
      services: context.services,
      llm: context.llm,
      conversations: context.conversations,
      sessions: context.sessions,
      actions: context.actions,
      ...(userId !== undefined ? { userId } : {}),
    };
    const messageId = `scene-trigger:${context.sceneId}:${trigger.id}`;
    const earlier = trigger.resumed ? await stepsAfter(agent, messageId) : undefined;
    let sent: Awaited<ReturnType<AgentInstance["resume"]>>;
    if (earlier) {
      // The loop had ended before the crash (only the scene's record of it was cut off): nothing to redo.
      if (earlier.last && earlier.last.status !== "running") return failedLoop(earlier.last.status, earlier.last.reason);
      context.resumeAfter(earlier.steps);
      sent = await agent.resume(run);
    } else sent = await agent.sendMessage(triggerMessage(trigger), { ...run, messageId });
    if (!sent.ok) throw new Error(`${sent.error.code}: ${sent.error.message}`);
    if (sent.value.status === "budget_exceeded") throw new DeliberationOverBudget(sent.value.reason ?? "An LLM call was refused by a budget.");
    if (sent.value.status === "failed") throw new Error(sent.value.error ? `${sent.value.error.code}: ${sent.value.error.message}` : (sent.value.reason ?? "the agent's loop failed"));
  };
}

/** The steps the conversation holds after the trigger's message; undefined when the message is not there. */
async function stepsAfter(agent: AgentInstance, messageId: string): Promise<{ steps: number; last?: AgentStepTrace } | undefined> {
  const messages = await agent.messages();
  const at = messages.findIndex((m) => m.id === messageId);
  if (at < 0) return undefined;
  let steps = 0;
  let last: AgentStepTrace | undefined;
  for (const m of messages.slice(at + 1)) {
    if (m.role !== "assistant" || !m.agentStep) continue;
    steps++;
    last = m.agentStep;
  }
  return { steps, ...(last ? { last } : {}) };
}

function failedLoop(status: AgentStepTrace["status"], reason: string | undefined): void {
  if (status === "failed") throw new Error(reason ?? "the agent's loop failed");
}
