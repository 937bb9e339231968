/**
 * The Builder feature as the others see it: the workbench, its store, and entering it (`useBuilderEntry`;
 * App.vue provides it to the editor as `askBuilderKey`).
 * Other features, app/ and App.vue import this feature through this file only.
 */
export { useBuilderStore } from "./builder-store.ts";
export { useBuilderEntry } from "./useBuilderEntry.ts";
/** The diff canvas and its model, drawn by the version history too. */
export { default as GraphDiffCanvas } from "./GraphDiffCanvas.vue";
export { default as DiffLegend } from "./DiffLegend.vue";
export { mergeGraph, markCounts, type GraphDiffView } from "./graph-diff-view.ts";

/** The Builder workbench (#/builder), loaded on first use (`defineAsyncComponent` in App.vue). */
export const loadBuilderWorkbench = () => import("./BuilderWorkbench.vue");
