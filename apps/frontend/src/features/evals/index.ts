/** Eval suites as the other features see them: the editor's Evals tab (and an agent's, in the Agents view), the run panel's and the agent chat's "Save as test case". Others import this feature through this file only. */

// Loaded on first use (`defineAsyncComponent` where they are shown): none is shown when a workflow opens, and their
// schemas (suites, scene suites and with them the scene schemas) stay out of the first download.
export const loadSaveAsCase = () => import("./SaveAsCase.vue");
export const loadEvalsPanel = () => import("./EvalsPanel.vue");
/** The Scenes view's Evals tab: the selected scene's suites. */
export const loadSceneSuitesPanel = () => import("./SceneSuitesPanel.vue");
