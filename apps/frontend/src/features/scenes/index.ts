/** The Scenes view (#/scenes), loaded on first use (`defineAsyncComponent` in App.vue). */
export const loadSceneView = () => import("./SceneView.vue");
