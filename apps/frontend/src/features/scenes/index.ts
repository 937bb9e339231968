/**
 * The Scenes feature as the shell sees it: its view, loaded on first use.
 * Other features, app/ and App.vue import this feature through this file only.
 */
/** The Scenes view (#/scenes), loaded on first use (`defineAsyncComponent` in App.vue). */
export const loadSceneView = () => import("./SceneView.vue");
export { sceneApi } from "./scenes-api.ts";
export { useScenesStore } from "./scenes-store.ts";
