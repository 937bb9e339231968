/**
 * The Agents feature as the others see it: the Agents view, the agents store and API, and an agent's steps and
 * permission asks (shown by Scenes too).
 * Other features, app/ and App.vue import this feature through this file only.
 */
export { default as PermissionAsk } from "./PermissionAsk.vue";
export { default as TraceStepView } from "./TraceStep.vue";
export { applyStepEvent, forgetStepsUpTo, type LiveStep, type LiveSteps } from "./agent-live.ts";
export { traceOfLive, traceOfRecorded, type TraceStep } from "./agent-trace.ts";
export { agentsApi } from "./agents-api.ts";
export { useAgentsStore } from "./agents-store.ts";

/** The Agents view (#/agents), loaded on first use (`defineAsyncComponent` in App.vue). */
export const loadAgentsView = () => import("./AgentsView.vue");
