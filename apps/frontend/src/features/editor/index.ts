/**
 * The editor as the others see it: the parts App.vue lays out, the nodes and edges the Builder's diff canvas
 * draws, node search, and `askBuilderKey` (what App.vue provides the editor with).
 * Other features, app/ and App.vue import this feature through this file only.
 */
export { default as ConflictDialog } from "./ConflictDialog.vue";
export { default as ConnectDialog } from "./ConnectDialog.vue";
export { default as ContextMenu } from "./ContextMenu.vue";
export { default as HelpPanel } from "./HelpPanel.vue";
export { default as HistoryPanel } from "./HistoryPanel.vue";
export { default as TopBar } from "./TopBar.vue";
export { default as WorkflowList } from "./WorkflowList.vue";
export { askBuilderKey, type AskBuilder } from "./core/ask-builder.ts";
export { default as FlowCanvas } from "./canvas/FlowCanvas.vue";
export { default as WeftEdge } from "./canvas/WeftEdge.vue";
export { default as WeftNode } from "./canvas/WeftNode.vue";
export { default as WeftNodeLight } from "./canvas/WeftNodeLight.vue";
export { provideCanvasContext } from "./canvas/useCanvasContext.ts";
export { toFlowEdge, toFlowNode, type FlowEdge, type FlowNode } from "./core/flow-elements.ts";
export { default as InspectorPanel } from "./inspector/InspectorPanel.vue";
export { default as InterfaceEditor } from "./inspector/InterfaceEditor.vue";
export { default as NodePalette } from "./palette/NodePalette.vue";
export { default as QuickAdd } from "./palette/QuickAdd.vue";
export { searchSpecs } from "./palette/node-search.ts";
export { useClipboard } from "./useClipboard.ts";
export { useKeyboardShortcuts } from "./useKeyboardShortcuts.ts";
