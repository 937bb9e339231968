import type { JsonObject, SceneLogEntry, SceneReplayProgress } from "@weft/types";
import { SceneError } from "../errors.ts";
import type { SceneRuntime } from "../runtime/scene-runtime.ts";
import type { RecordedEffectOrder } from "./effect-order.ts";
import type { RecordedLlm } from "./recorded-llm.ts";
import { recordedTriggerScript } from "./trigger-script.ts";
import { checkScript } from "./script-check.ts";

/** A user message of the recorded session, as the replay sends it again. */
export interface RecordedUserMessage {
  to: string;
  text: string;
}

export interface SceneReplayReport {
  /** True when every request was answered from the record and every recorded output was used. */
  ok: boolean;
  messages: number;
  world: JsonObject;
  privateStates: Record<string, JsonObject>;
  divergences: string[];
  /** Recorded outputs left unused, per agent instance. */
  unused: Record<string, number>;
}

/**
 * The user messages of a session log, in order. A message to all agents was queued once per agent
 * with the same time and text; it is sent again once.
 */
export function recordedUserMessages(log: readonly SceneLogEntry[]): RecordedUserMessage[] {
  const out: RecordedUserMessage[] = [];
  let lastAll: { at: number; text: string; agents: Set<string> } | undefined;
  for (const entry of log) {
    if (entry.kind !== "trigger.queued" || entry.trigger.kind !== "user" || entry.trigger.resumed) continue;
    const { to, text, at } = entry.trigger;
    if (to === "all") {
      if (lastAll && lastAll.at === at && lastAll.text === text && !lastAll.agents.has(entry.instanceId)) {
        lastAll.agents.add(entry.instanceId);
        continue;
      }
      lastAll = { at, text, agents: new Set([entry.instanceId]) };
    } else lastAll = undefined;
    out.push({ to, text });
  }
  return out;
}

/**
 * Replays a recorded session in a fresh runtime of the same scene whose agents take their model
 * outputs from `recorded` (wire it with `sceneDeliberate(agentFor, { replay: recorded })` and
 * `recorded.serviceFor(instanceId)` as each agent's LLM): each agent deliberates the triggers it
 * took in the session, in that order (`recordedTriggerScript`: user messages, events as they were
 * merged, timer ticks), and the resulting states are reported. With `effects` (also given to the
 * runtime as its `effectGate`), agents' world writes and publishes follow the recorded order. Build
 * the replay runtime without timer triggers (recorded ticks come from the script).
 * `onProgress` hears how far it is at the start, after each output served and at the end.
 */
export async function replayScene(
  runtime: SceneRuntime,
  log: readonly SceneLogEntry[],
  recorded: RecordedLlm,
  effects?: RecordedEffectOrder,
  onProgress?: (progress: SceneReplayProgress) => void,
): Promise<SceneReplayReport> {
  if (runtime.status().status !== "idle" || runtime.log.nextSeq > 0) {
    throw new SceneError("INVALID_TRANSITION", "A replay needs a fresh runtime of the scene: create a new SceneRuntime and replay into it before anything runs.");
  }
  const messages = recordedUserMessages(log);
  let messagesDone = 0;
  const report = () => {
    const { used, total } = recorded.progress();
    onProgress?.({ messagesDone, messages: messages.length, outputsUsed: used, outputs: total });
  };
  const scripted = checkScript(log, recordedTriggerScript(log));
  const detach = effects?.attach(runtime.log);
  const unwatch = onProgress ? recorded.onServed(report) : undefined;
  try {
    report();
    // Each agent takes the triggers it took in the session, whatever the timing now: the user's
    // messages are among them, so they are not sent again.
    runtime.followScript(scripted.script);
    runtime.start();
    await runtime.whenIdle();
    messagesDone = messages.length;
    report();
    await runtime.stop();
  } finally {
    unwatch?.();
    detach?.();
    effects?.dispose();
  }
  const divergences = [...scripted.divergences, ...recorded.divergences, ...(effects?.divergences ?? [])];
  const unused = recorded.unused();
  const privateStates = Object.fromEntries(runtime.scene.agents.map((a) => [a.instanceId, runtime.privateState(a.instanceId).snapshot()]));
  return {
    ok: divergences.length === 0 && Object.keys(unused).length === 0,
    messages: messages.length,
    world: runtime.world.snapshot(),
    privateStates,
    divergences,
    unused,
  };
}
