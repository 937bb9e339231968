/**
 * Home as the shell sees it: the first screen (loaded on first use) and whether it opens at start.
 * Other features, app/ and App.vue import this feature through this file only.
 */
export { HOME_AT_START_KEY, homeAtStart } from "./home-memory.ts";

/** The Home view (#/home), loaded on first use (`defineAsyncComponent` in App.vue). */
export const loadHomeView = () => import("./HomeView.vue");
