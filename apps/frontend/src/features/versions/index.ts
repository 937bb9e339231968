/**
 * Version history as the other features see it: the workflow editor's Versions tab, and a version list with restore
 * for the agent and scene editors. Other features, app/ and App.vue import this feature through this file only.
 */
export { default as VersionList } from "./VersionList.vue";
export type { VersionedKind } from "./versions-api.ts";

/** The editor's Versions tab, loaded on first use (`defineAsyncComponent` in App.vue): the editor opens on the Nodes tab. */
export const loadVersionsPanel = () => import("./VersionsPanel.vue");

/** An agent profile's saved versions, for a step fork's version choice. */
export { useProfileVersions } from "./useProfileVersions.ts";
