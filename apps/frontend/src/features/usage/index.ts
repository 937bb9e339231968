/**
 * LLM usage as the others see it: the badge (tokens and cost), the report fetcher, and a node output read as figures.
 * Other features import this feature through this file only.
 */
export { default as UsageBadge } from "./UsageBadge.vue";
export { default as BudgetsEditor } from "./BudgetsEditor.vue";
export { default as UsagePerStep } from "./UsagePerStep.vue";
export { default as UsagePerHour } from "./UsagePerHour.vue";
export { sumUsageRows } from "./usage-rows.ts";
export { useUsage } from "./useUsage.ts";
export { costText, figuresOf, tokensText, type UsageFigures } from "./usage-format.ts";
export type { UsageRow } from "./usage-api.ts";

/** Settings → Usage, loaded on first use (`defineAsyncComponent` in the Settings dialog): the runs' views, which load this feature with the editor, never show it. */
export const loadUsageReport = () => import("./UsageReport.vue");
