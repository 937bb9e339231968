/**
 * Runs as the others see it: the runs store, the run dialog, panel, banner and announcer, the Runs tab (RecentRuns), a node's run details
 * and footer, run state.
 * Other features, app/ and App.vue import this feature through this file only.
 */
export { default as NodeRunDetails } from "./NodeRunDetails.vue";
export { default as NodeRunFooter } from "./NodeRunFooter.vue";
export { default as RunAnnouncer } from "./RunAnnouncer.vue";
export { default as RunBanner } from "./RunBanner.vue";
export { default as ReadonlyBanner } from "./ReadonlyBanner.vue";
export { default as RunPanel } from "./RunPanel.vue";
export { edgeCarried, isRunActive, type RunView } from "./run-state.ts";
export { useRunsStore } from "./runs-store.ts";
export { STATUS_VAR } from "./status-colors.ts";
export { useRunMemory } from "./useRunMemory.ts";

// Loaded on first use (`defineAsyncComponent` in App.vue): not shown when a workflow opens.
export const loadRecentRuns = () => import("./RecentRuns.vue");
export const loadRunDialog = () => import("./RunDialog.vue");
