import { computed, onBeforeUnmount, watch, type ComputedRef } from "vue";
import type { VueFlowStore } from "@vue-flow/core";
import type { Workflow, WorkflowNode } from "@weft/types";
import type { Size } from "../../../shared/graph/node-size.ts";
import { cullArea, nodesToShow, sameSet } from "./culling.ts";
import { LARGE_GRAPH, type Viewport } from "./viewport.ts";

const viewKey = (v: Viewport, screen: Size) => `${v.x},${v.y},${v.zoom},${screen.width},${screen.height}`;

/**
 * A large graph's own culling: Vue Flow gets only the nodes near the screen (culling.ts), since it
 * keeps every node it holds as a reactive object it sets up, looks up, measures and watches, though it
 * renders only those in view. The whole graph stays in the document, which the minimap, the overview,
 * fit and keyboard navigation read; the sizes Vue Flow measured are kept here for them.
 *
 * `shown` is null for a graph of up to LARGE_GRAPH nodes: Vue Flow holds it all. `apply` hands Vue
 * Flow the document's nodes again (FlowCanvas), called whenever the set changes.
 */
export function useCulledNodes(flow: VueFlowStore, doc: ComputedRef<Workflow>, estimate: (node: WorkflowNode) => Size, apply: () => void) {
  const large = computed(() => doc.value.nodes.length > LARGE_GRAPH);
  /** Sizes as Vue Flow measured them, kept when a node leaves it. Not reactive: read when drawing or culling. */
  const measured = new Map<string, Size>();
  /** Nodes to hand Vue Flow whatever the view (shown, or about to be selected): until the selection holds them. */
  const pins = new Set<string>();
  let shown: Set<string> | null = null;
  /** The view the set was last worked out for: the view settling where the canvas opened changes nothing. */
  let lastView = "";
  let dragging = false;
  let paused = false;
  let frame = 0;

  const sizeOf = (node: WorkflowNode): Size => measured.get(node.id) ?? estimate(node);

  /** The selected nodes and both ends of the selected edges: Vue Flow holds their selection, so it keeps them. */
  function pinned(): string[] {
    const ids = [...pins];
    for (const n of flow.getSelectedNodes.value) ids.push(n.id);
    for (const e of flow.getSelectedEdges.value) ids.push(e.source, e.target);
    return ids;
  }

  /** Works the set out again (for a viewport about to be set, when given); true when it changed. */
  function recompute(viewport: Viewport = flow.viewport.value, screen: Size = flow.dimensions.value): boolean {
    if (!large.value) {
      const changed = shown !== null;
      shown = null;
      return changed;
    }
    lastView = viewKey(viewport, screen);
    // Before the canvas is measured (set up, not mounted) nothing is near the screen.
    const next = screen.width > 0 ? nodesToShow(doc.value, cullArea(viewport, screen), sizeOf, pinned()) : new Set<string>();
    if (shown && sameSet(shown, next)) return false;
    shown = next;
    return true;
  }

  function update(viewport?: Viewport, screen?: Size) {
    if (recompute(viewport, screen)) apply();
  }

  // The view moves: once a frame at most, and never under a drag (handing nodes over resets their positions to the document's).
  const schedule = () => {
    if (frame || paused) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      if (!dragging && viewKey(flow.viewport.value, flow.dimensions.value) !== lastView) update();
    });
  };
  watch([flow.viewport, flow.dimensions], schedule);
  flow.onNodeDragStart(() => (dragging = true));
  flow.onNodeDragStop(() => {
    dragging = false;
    schedule();
  });
  flow.onNodesChange((changes) => {
    for (const change of changes) if (change.type === "dimensions" && change.dimensions) measured.set(change.id, { width: change.dimensions.width, height: change.dimensions.height });
  });
  // Once the selection holds a pinned node (or it was not selected after all), the pin has done its work.
  watch(flow.getSelectedNodes, () => pins.clear());
  onBeforeUnmount(() => cancelAnimationFrame(frame));

  return {
    /** Whether Vue Flow is given this node now (every node of a graph that is not large). */
    has: (id: string) => shown === null || shown.has(id),
    /** Works out the set for the document as it is now, before its nodes are handed to Vue Flow; `also` are pinned. */
    refresh(also: Iterable<string> = []) {
      for (const id of also) pins.add(id);
      recompute();
    },
    /** Hands these nodes to Vue Flow at once (before selecting or showing them). */
    pin(ids: Iterable<string>) {
      for (const id of ids) pins.add(id);
      update();
    },
    /** Sets the view that is about to be shown (the canvas opens at it), so the first nodes are the right ones. */
    update,
    /** While the overview draws the graph, Vue Flow holds nothing. */
    pause: (value: boolean) => (paused = value),
    sizeOf,
    measured: (id: string): Size | undefined => measured.get(id),
  };
}
