import { useWorkflowsStore } from "../../../shared/workflow/workflows-store.ts";

/** Pinning a node's outputs for the next runs (the engine then hands them on without running it), and unpinning; each one undo step. */
export function usePinnedOutputs() {
  const workflows = useWorkflowsStore();
  return {
    pin: (tabId: string, nodeId: string, outputs: Record<string, unknown>) => workflows.exec({ kind: "update-node", id: nodeId, patch: { pinned: outputs } }, "Pin output", { tabId }),
    unpin: (tabId: string, nodeId: string) => workflows.exec({ kind: "update-node", id: nodeId, patch: { pinned: undefined } }, "Unpin output", { tabId }),
  };
}
