export { default as PermissionRulesTable } from "./PermissionRulesTable.vue";
export { LlmProfilesApi, type LlmProfileView } from "./llm-profiles-api.ts";
export { blankRule, placeRuleIssues, ruleDraftsOf, rulesOf, serverIssuesOf, type RuleDraft, type RuleErrors } from "./permission-draft.ts";

/** The ⚙ Settings dialog, loaded on first use (`defineAsyncComponent` in App.vue). */
export const loadSettingsDialog = () => import("./SettingsDialog.vue");
