import { onBeforeUnmount, onMounted, watch, type Ref } from "vue";
import type { GraphNode, VueFlowStore } from "@vue-flow/core";
import type { Workflow } from "@weft/types";
import { fittingViewport, framingViewport, LARGE_GRAPH } from "./viewport.ts";
import { minimapCover } from "./minimap.ts";
import type { useCulledNodes } from "./useCulledNodes.ts";
import { keepInView } from "../core/placement.ts";
import { useZoomSteps } from "./zoom-steps.ts";
import { useUiStore } from "../../../shared/ui/ui-store.ts";
import { useWorkflowsStore } from "../../../shared/workflow/workflows-store.ts";

export interface CanvasBridgeOptions {
  tabId: string;
  /** The canvas element: the visible area whose centre `viewCenter` answers. */
  root: Ref<HTMLElement | null>;
  doc: Ref<Workflow>;
  minZoom: number;
  /** Moves the keyboard focus to a node (from `useCanvasKeyboard`). */
  focusNode(id: string): void;
  /** Which nodes Vue Flow holds: a node is handed to it before it is selected or shown. */
  culled: Pick<ReturnType<typeof useCulledNodes>, "pin" | "measured" | "has" | "sizeOf">;
}

/**
 * Registers one canvas as `ui.canvas` (the `CanvasBridge` the rest of the app drives it through)
 * whenever its tab becomes the active one, and withdraws it when the canvas goes away. Returns the
 * fit the canvas also uses when it opens.
 */
export function useCanvasBridge(flow: VueFlowStore, { tabId, root, doc, minZoom, focusNode, culled }: CanvasBridgeOptions): { fit(duration: number): void } {
  const ui = useUiStore();
  const workflows = useWorkflowsStore();
  const zoom = useZoomSteps(flow);

  /**
   * Frames every node beside or above the minimap, never under it. A large graph is framed from the
   * document at once: no animation rendering a set of nodes at each step, and the overview holds no
   * nodes for Vue Flow to measure; a smaller one from all its nodes as measured (`getNodes` would be
   * only those on screen once Vue Flow renders only the visible ones, past 150 nodes).
   */
  function fit(duration: number) {
    const options = { padding: 0.15, minZoom, maxZoom: 1, cover: minimapCover(root.value) };
    if (doc.value.nodes.length > LARGE_GRAPH) return void flow.setViewport(fittingViewport(doc.value, flow.dimensions.value, options));
    const boxes = flow.nodes.value.map((n) => ({ x: n.computedPosition.x, y: n.computedPosition.y, width: n.dimensions.width, height: n.dimensions.height }));
    void flow.setViewport(framingViewport(boxes, flow.dimensions.value, options), duration ? { duration } : undefined);
  }

  function visibleRect() {
    const rect = root.value?.getBoundingClientRect();
    if (!rect) return { x: 0, y: 0, width: 0, height: 0 };
    const topLeft = flow.screenToFlowCoordinate({ x: rect.left, y: rect.top });
    const bottomRight = flow.screenToFlowCoordinate({ x: rect.right, y: rect.bottom });
    return { ...topLeft, width: bottomRight.x - topLeft.x, height: bottomRight.y - topLeft.y };
  }

  function attach() {
    ui.attachCanvas({
      focusNode,
      showNode: (id) => {
        culled.pin([id]);
        void flow.fitView({ nodes: [id], padding: 0.4, minZoom, maxZoom: 1, duration: 150 });
        flow.removeSelectedElements();
        const node = flow.findNode(id);
        if (node) flow.addSelectedNodes([node]);
        focusNode(id);
      },
      fitView: () => fit(200),
      zoomIn: zoom.zoomIn,
      zoomOut: zoom.zoomOut,
      viewCenter: () => {
        const rect = root.value?.getBoundingClientRect();
        return rect ? flow.screenToFlowCoordinate({ x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 }) : { x: 0, y: 0 };
      },
      visibleRect,
      reveal: (box) => {
        const shown = keepInView(box, box, visibleRect());
        const { x, y, zoom } = flow.viewport.value;
        if (shown.x !== box.x || shown.y !== box.y) void flow.setViewport({ x: x - (box.x - shown.x) * zoom, y: y - (box.y - shown.y) * zoom, zoom }, { duration: 150 });
      },
      toFlow: (p) => flow.screenToFlowCoordinate(p),
      toScreen: (p) => flow.flowToScreenCoordinate(p),
      sizeOf: (id) => {
        const d = flow.findNode(id)?.dimensions;
        if (d && d.width > 0) return { width: d.width, height: d.height };
        const known = culled.measured(id);
        // A node Vue Flow does not hold (a large graph's, off screen) is never measured: once Vue Flow can move its view,
        // its size is the one it will be handed over with, so what waits for it (a link to the node) can go on.
        if (known || culled.has(id) || !flow.viewportHelper.value.viewportInitialized) return known;
        const node = doc.value.nodes.find((n) => n.id === id);
        return node && culled.sizeOf(node);
      },
      select: (ids) => {
        culled.pin(ids);
        flow.removeSelectedElements();
        flow.addSelectedNodes(ids.map((id) => flow.findNode(id)).filter((n): n is GraphNode => !!n));
      },
      selectAll: () => {
        culled.pin(doc.value.nodes.map((n) => n.id));
        flow.addSelectedNodes(flow.nodes.value);
      },
      clearSelection: () => flow.removeSelectedElements(),
    });
  }

  watch(
    () => workflows.activeId,
    (id) => {
      if (id === tabId) attach();
    },
  );
  onMounted(() => {
    if (workflows.activeId === tabId) attach();
  });
  onBeforeUnmount(() => {
    if (workflows.activeId === tabId || !workflows.tab(workflows.activeId ?? "")) ui.attachCanvas(null);
  });
  return { fit };
}
