/**
 * Settings as the others see it: the dialog, LLM profiles, and the permission rules table and its logic.
 * Other features, app/ and App.vue import this feature through this file only.
 */
export { default as PermissionRulesTable } from "./PermissionRulesTable.vue";
export { LlmProfilesApi, type LlmProfileView } from "./llm-profiles-api.ts";
export { blankRule, placeRuleIssues, ruleDraftsOf, rulesOf, serverIssuesOf, type RuleDraft, type RuleErrors } from "./permission-draft.ts";

/** The ⚙ Settings dialog, loaded on first use (`defineAsyncComponent` in App.vue). */
export const loadSettingsDialog = () => import("./SettingsDialog.vue");
