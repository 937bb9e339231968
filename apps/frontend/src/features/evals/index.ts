/** Eval suites as the other features see them: the editor's Evals tab (and an agent's, in the Agents view), the run panel's and the agent chat's "Save as test case". Others import this feature through this file only. */
export { default as EvalsPanel } from "./EvalsPanel.vue";
export { default as SaveAsCase } from "./SaveAsCase.vue";
/** The Scenes view's Evals tab: the selected scene's suites. */
export { default as SceneSuitesPanel } from "./SceneSuitesPanel.vue";
