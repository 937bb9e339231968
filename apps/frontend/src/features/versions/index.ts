/**
 * Version history as the other features see it: the workflow editor's Versions tab, and a version list with restore
 * for the agent and scene editors. Other features, app/ and App.vue import this feature through this file only.
 */
export { default as VersionsPanel } from "./VersionsPanel.vue";
export { default as VersionList } from "./VersionList.vue";
export type { VersionedKind } from "./versions-api.ts";
