/**
 * Triggers as the others see it: the Triggers tab (every webhook and schedule, its URL or cron and next ticks, last
 * fire and result, the workflow's on/off switch, secrets shown once). Other features, app/ and App.vue import this feature through this file only.
 */
export { default as TriggersPanel } from "./TriggersPanel.vue";
export { useTriggersStore } from "./triggers-store.ts";
export { default as WebhookHookBox } from "./WebhookHookBox.vue";
export { default as ScheduleBox } from "./ScheduleBox.vue";
