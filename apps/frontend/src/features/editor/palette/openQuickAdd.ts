import { nodePorts } from "../../../shared/graph/ports.ts";
import { DEFAULT_NODE_SIZE } from "../../../shared/graph/node-size.ts";
import type { useNodesStore } from "../../../shared/workflow/nodes-store.ts";
import type { useUiStore, QuickAddState } from "../../../shared/ui/ui-store.ts";
import type { Workflow } from "@weft/types";
import { besideNode, keepInView } from "../core/placement.ts";

type Stores = { ui: ReturnType<typeof useUiStore>; nodes: ReturnType<typeof useNodesStore> };

/**
 * Quick-add opened from the keyboard (`/`, Space): with one node selected, the new node is wired to
 * it (from its outputs, or into its inputs when it has none) and placed beside it; else at the
 * pointer when it is over the visible canvas, else at the view's centre. Always on screen.
 */
export function keyboardQuickAdd(doc: Workflow | undefined, { ui, nodes }: Stores): QuickAddState | null {
  const canvas = ui.canvas;
  if (!canvas) return null;
  const view = canvas.visibleRect();
  const inView = (p: { x: number; y: number }) => p.x >= view.x && p.y >= view.y && p.x <= view.x + view.width && p.y <= view.y + view.height;
  const selected = ui.singleSelected ? doc?.nodes.find((n) => n.id === ui.singleSelected) : undefined;
  if (selected) {
    const ports = nodePorts(selected, nodes.lookup(selected.type));
    const fromSide = ports.outputs.length ? "source" : "target";
    const anchor = { ...selected.position, ...(canvas.sizeOf(selected.id) ?? DEFAULT_NODE_SIZE) };
    const flow = keepInView(besideNode(anchor, DEFAULT_NODE_SIZE, fromSide), DEFAULT_NODE_SIZE, view);
    const pending = ports.outputs.length || ports.inputs.length ? ({ nodeId: selected.id, fromSide, ports: fromSide === "source" ? ports.outputs : ports.inputs, dragged: false } as const) : undefined;
    return { screen: canvas.toScreen(flow), flow, ...(pending ? { pending } : {}) };
  }
  const centre = canvas.viewCenter();
  const flow = ui.pointer && inView(ui.pointer) ? ui.pointer : keepInView({ x: centre.x - DEFAULT_NODE_SIZE.width / 2, y: centre.y - DEFAULT_NODE_SIZE.height / 2 }, DEFAULT_NODE_SIZE, view);
  return { screen: canvas.toScreen(flow), flow };
}
