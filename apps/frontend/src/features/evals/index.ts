/** Eval suites as the other features see them: the editor's Evals tab. App.vue imports this feature through this file only. */
export { default as EvalsPanel } from "./EvalsPanel.vue";
