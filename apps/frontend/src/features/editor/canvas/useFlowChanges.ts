import type { EdgeChange, NodeChange, VueFlowStore } from "@vue-flow/core";

/**
 * Applies Vue Flow's own changes (selection, dragging) in time linear in the number of changes.
 * Its default handler compares every node with every change, which for a thousand nodes measured
 * at once is a million steps. Adding and removing elements is the workflow document's business:
 * the canvas sets them from it, so those changes are not applied here.
 */
export function useFlowChanges(flow: VueFlowStore) {
  flow.onNodesChange((changes: NodeChange[]) => {
    for (const change of changes) {
      switch (change.type) {
        case "select": {
          const node = flow.findNode(change.id);
          if (node) node.selected = change.selected;
          break;
        }
        case "position": {
          const node = flow.findNode(change.id);
          if (!node) break;
          if (change.position) node.position = change.position;
          if (change.dragging !== undefined) node.dragging = change.dragging;
          break;
        }
        case "dimensions":
          // Vue Flow has set the measured size on the node before telling.
          break;
        case "add":
        case "remove":
          break;
        default: {
          const never: never = change;
          return never;
        }
      }
    }
  });
  flow.onEdgesChange((changes: EdgeChange[]) => {
    for (const change of changes) {
      switch (change.type) {
        case "select": {
          const edge = flow.findEdge(change.id);
          if (edge) edge.selected = change.selected;
          break;
        }
        case "add":
        case "remove":
          break;
        default: {
          const never: never = change;
          return never;
        }
      }
    }
  });
}
