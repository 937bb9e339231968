/**
 * Approvals as the others see it: the Approvals tab (the inbox of waiting runs' questions). Other features, app/ and
 * App.vue import this feature through this file only.
 */
export { default as ApprovalsPanel } from "./ApprovalsPanel.vue";
export { useApprovalsStore } from "./approvals-store.ts";
