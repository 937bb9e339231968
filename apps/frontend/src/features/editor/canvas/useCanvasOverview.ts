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
export function useCanvasOverview(flow: VueFlowStore, doc: ComputedRef<Workflow>, selection: () => string[]) {
  const active = computed(() => isOverview(doc.value.nodes.length, flow.viewport.value.zoom));
  const sizes = shallowRef<ReadonlyMap<string, Size>>(new Map());

  function enter() {
    const measured = new Map<string, Size>();
    for (const n of flow.nodes.value) if (n.dimensions.width > 0) measured.set(n.id, { width: n.dimensions.width, height: n.dimensions.height });
    sizes.value = measured;
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
