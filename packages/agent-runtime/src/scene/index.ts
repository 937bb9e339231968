export { SceneError, SCENE_ERROR_CODES, type SceneErrorCode } from "./errors.ts";
export { parsePath, formatPath, type PathSegment } from "./state/json-path.ts";
export { toJsonValue } from "./state/json-value.ts";
export { WorldState, type WorldStateOptions, type WorldStateData } from "./state/world-state.ts";
export { PrivateState } from "./state/private-state.ts";
export { EventBus, type BusEvent, type BusHandler, type EventBusOptions } from "./events/event-bus.ts";
export { compileTopicPattern, assertTopic, type TopicMatcher } from "./events/topic-pattern.ts";
export { TriggerQueue, type EnqueueOutcome } from "./triggers/trigger-queue.ts";
export { AgentMailbox, type MailboxHooks, type RunDeliberation } from "./triggers/agent-mailbox.ts";
export { StepBudget } from "./triggers/step-budget.ts";
export { IntervalTimer } from "./triggers/interval-timer.ts";
export { SceneLog, type SceneLogOptions } from "./log/scene-log.ts";
export type { SceneStateStore } from "./persistence/scene-state-store.ts";
export { FileSceneStateStore } from "./persistence/file-scene-state-store.ts";
export {
  SceneRuntime,
  type SceneRuntimeOptions,
  type ScenePeerProfile,
  type Deliberate,
  type DeliberationContext,
  type RecordedLlmOutput,
  type SceneStatusInfo,
} from "./runtime/scene-runtime.ts";
export { RecordedLlm, triggerSignature } from "./replay/recorded-llm.ts";
export { replayScene, recordedUserMessages, type RecordedUserMessage, type SceneReplayReport } from "./replay/scene-replay.ts";
export { sceneStateDifferences, MAX_DIFFERENCES, type SceneStates } from "./replay/state-diff.ts";
export { RecordedEffectOrder, type EffectGate, type SceneEffectKind } from "./replay/effect-order.ts";
