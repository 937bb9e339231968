/**
 * The editor as the others see it: the parts App.vue lays out, the nodes and edges the Builder's diff canvas
 * draws, node search, and `askBuilderKey` (what App.vue provides the editor with).
 * Other features, app/ and App.vue import this feature through this file only.
 */
export { default as ContextMenu } from "./ContextMenu.vue";
export { default as TopBar } from "./TopBar.vue";
export { default as WorkflowList } from "./WorkflowList.vue";
export { askBuilderKey, type AskBuilder } from "./core/ask-builder.ts";
export { default as FlowCanvas } from "./canvas/FlowCanvas.vue";
export { default as WeftEdge } from "./canvas/WeftEdge.vue";
export { default as WeftNode } from "./canvas/WeftNode.vue";
export { default as WeftNodeLight } from "./canvas/WeftNodeLight.vue";
export { provideCanvasContext } from "./canvas/useCanvasContext.ts";
export { useZoomSteps } from "./canvas/zoom-steps.ts";
export { toFlowEdge, toFlowNode, type FlowEdge, type FlowNode } from "./core/flow-elements.ts";
export { default as InspectorPanel } from "./inspector/InspectorPanel.vue";
export { default as NodePalette } from "./palette/NodePalette.vue";
export { searchSpecs } from "./palette/node-search.ts";
export { useClipboard } from "./useClipboard.ts";
export { useKeyboardShortcuts } from "./useKeyboardShortcuts.ts";

// Loaded on first use (`defineAsyncComponent` in App.vue): none of them is shown when a workflow opens.
export const loadConflictDialog = () => import("./ConflictDialog.vue");
export const loadConnectDialog = () => import("./ConnectDialog.vue");
export const loadHelpPanel = () => import("./HelpPanel.vue");
export const loadHistoryPanel = () => import("./HistoryPanel.vue");
export const loadInterfaceEditor = () => import("./inspector/InterfaceEditor.vue");
export const loadQuickAdd = () => import("./palette/QuickAdd.vue");
