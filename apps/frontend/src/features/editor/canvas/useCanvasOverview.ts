import { computed, shallowRef, type ComputedRef } from "vue";
import type { GraphNode, VueFlowStore } from "@vue-flow/core";
import type { Workflow } from "@weft/types";
import type { Size } from "../../../shared/graph/node-size.ts";
import { isOverview } from "./overview.ts";

/**
 * The far zoom of a large graph: while it lasts Vue Flow holds no nodes or edges (CanvasOverview
 * draws them), so fitting thousands of nodes in view mounts nothing. The sizes Vue Flow measured are
 * kept for the drawing, and the selection is given back when the nodes return.
 */
export function useCanvasOverview(flow: VueFlowStore, doc: ComputedRef<Workflow>, selection: () => string[], measured: (id: string) => Size | undefined) {
  const active = computed(() => isOverview(doc.value.nodes.length, flow.viewport.value.zoom));
  const sizes = shallowRef<ReadonlyMap<string, Size>>(new Map());

  function enter() {
    // Every node measured so far, whether Vue Flow holds it now or not (a large graph's culling).
    const known = new Map<string, Size>();
    for (const n of doc.value.nodes) {
      const size = measured(n.id);
      if (size) known.set(n.id, size);
    }
    sizes.value = known;
    flow.setEdges([]);
    flow.setNodes([]);
  }

  /** After the nodes are handed back to Vue Flow. */
  function leave() {
    const ids = selection();
    if (ids.length) flow.addSelectedNodes(ids.map((id) => flow.findNode(id)).filter((n): n is GraphNode => !!n));
  }

  return { active, sizes, enter, leave };
}
