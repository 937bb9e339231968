/**
 * Approvals as the others see it: the header's Approvals inbox (the waiting runs' questions, with their count). Other features, app/ and
 * App.vue import this feature through this file only.
 */
export { default as ApprovalsInbox } from "./ApprovalsInbox.vue";
export { useApprovalsStore } from "./approvals-store.ts";
