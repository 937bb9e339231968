/**
 * Triggers as the others see it: the Triggers tab (every webhook and schedule, its URL or cron and next ticks, last
 * fire and result, the workflow's on/off switch, secrets shown once). Other features, app/ and App.vue import this feature through this file only.
 */
export { useTriggersStore } from "./triggers-store.ts";
export { default as WebhookHookBox } from "./WebhookHookBox.vue";
export { default as ScheduleBox } from "./ScheduleBox.vue";
/** The Triggers tab, loaded on first use (`defineAsyncComponent` in App.vue). */
export const loadTriggersPanel = () => import("./TriggersPanel.vue");
