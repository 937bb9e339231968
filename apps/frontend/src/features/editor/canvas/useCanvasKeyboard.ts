import type { Ref } from "vue";
import type { GraphNode, VueFlowStore } from "@vue-flow/core";
import type { WorkflowNode } from "@weft/types";
import type { Size } from "../../../shared/graph/node-size.ts";
import type { Position } from "../../../shared/graph/commands.ts";
import { annotationIdOf } from "../core/flow-elements.ts";
import { useUiStore } from "../../../shared/ui/ui-store.ts";
import { useWorkflowsStore } from "../../../shared/workflow/workflows-store.ts";

/** Flow pixels an arrow moves the selection; with Shift, the bigger step. */
const STEP = 10;
const BIG_STEP = 50;
/** Frames a focus waits for a node being brought into view to be drawn. */
const REVEAL_FRAMES = 60;
const ARROWS: Readonly<Record<string, Position>> = { ArrowUp: { x: 0, y: -1 }, ArrowDown: { x: 0, y: 1 }, ArrowLeft: { x: -1, y: 0 }, ArrowRight: { x: 1, y: 0 } };

/** Moves the focus to the first field of the inspector (the selected node's settings). */
export function focusInspector(): void {
  const field = ":is(input, select, textarea, button):not([disabled])";
  (document.querySelector<HTMLElement>(`.inspector-body ${field}`) ?? document.querySelector<HTMLElement>(`.inspector ${field}`))?.focus();
}

/**
 * The canvas by keyboard, for a focused node (keys typed in a node's own fields stay theirs):
 * Enter or Space selects it (Shift adds to the selection), Enter on a selected node opens the
 * inspector; arrows move the selection (Shift: bigger steps; one undo step per run of presses) or,
 * when the node is not selected, move the focus to the nearest node that way; the context-menu key
 * or Shift+F10 opens the node's menu. Vue Flow's own node keys stay off: its moves bypass the document.
 * The nearest node is looked for in the whole document (`sizeOf` its measured or estimated size): Vue
 * Flow holds only a large graph's nodes near the screen; one off screen is brought into view.
 */
export function useCanvasKeyboard(flow: VueFlowStore, root: Ref<HTMLElement | null>, tabId: string, readonly: Ref<boolean>, sizeOf: (node: WorkflowNode) => Size) {
  const ui = useUiStore();
  const workflows = useWorkflowsStore();

  const elementOf = (id: string) => root.value?.querySelector<HTMLElement>(`.vue-flow__node[data-id="${CSS.escape(id)}"]`) ?? null;

  /** Focuses a node; one just added is drawn a frame or two later. */
  function focusNode(id: string, tries = 10) {
    const el = elementOf(id);
    if (el) el.focus();
    else if (tries > 0) requestAnimationFrame(() => focusNode(id, tries - 1));
  }

  function selectOnly(node: GraphNode) {
    flow.removeSelectedElements();
    flow.addSelectedNodes([node]);
  }

  function moveSelection(direction: Position, step: number) {
    const doc = workflows.tab(tabId)?.doc;
    if (!doc) return;
    const moves: { nodes: Record<string, Position>; annotations: Record<string, Position> } = { nodes: {}, annotations: {} };
    for (const n of flow.getSelectedNodes.value) {
      const annotationId = annotationIdOf(n.id);
      const from = annotationId === null ? doc.nodes.find((d) => d.id === n.id)?.position : doc.annotations.find((a) => a.id === annotationId)?.position;
      if (!from) continue;
      const to = { x: from.x + direction.x * step, y: from.y + direction.y * step };
      if (annotationId === null) moves.nodes[n.id] = to;
      else moves.annotations[annotationId] = to;
    }
    const ids = [...Object.keys(moves.nodes), ...Object.keys(moves.annotations)].sort().join(",");
    workflows.exec({ kind: "move", ...moves }, "Move", { tabId, coalesceKey: `keyboard-move:${ids}` });
  }

  /** The nearest workflow node whose centre lies that way, preferring ones straight ahead. */
  function neighbour(fromId: string, direction: Position): WorkflowNode | undefined {
    const nodes = workflows.tab(tabId)?.doc.nodes ?? [];
    const from = nodes.find((n) => n.id === fromId);
    if (!from) return undefined;
    const centre = (n: WorkflowNode) => {
      const size = sizeOf(n);
      return { x: n.position.x + size.width / 2, y: n.position.y + size.height / 2 };
    };
    const origin = centre(from);
    let best: { node: WorkflowNode; score: number } | undefined;
    for (const n of nodes) {
      if (n.id === from.id) continue;
      const c = centre(n);
      const ahead = (c.x - origin.x) * direction.x + (c.y - origin.y) * direction.y;
      if (ahead <= 0) continue;
      const aside = Math.abs((c.x - origin.x) * direction.y + (c.y - origin.y) * direction.x);
      const score = ahead + 2 * aside;
      if (!best || score < best.score) best = { node: n, score };
    }
    return best?.node;
  }

  function onKeydown(event: KeyboardEvent) {
    const el = event.target;
    if (!(el instanceof HTMLElement) || !el.classList.contains("vue-flow__node") || event.altKey || event.ctrlKey || event.metaKey) return;
    const node = flow.findNode(el.dataset.id ?? "");
    if (!node) return;
    const arrow = ARROWS[event.key];
    if (event.key === "Enter" || event.key === " ") {
      if (event.shiftKey) {
        if (node.selected) flow.removeSelectedNodes([node]);
        else flow.addSelectedNodes([node]);
      } else if (event.key === "Enter" && node.selected) focusInspector();
      else selectOnly(node);
    } else if (arrow) {
      if (node.selected && !readonly.value) moveSelection(arrow, event.shiftKey ? BIG_STEP : STEP);
      else {
        const next = neighbour(node.id, arrow);
        if (next) {
          // Off screen, it is not drawn (nor, in a large graph, held by Vue Flow) until the view comes to it.
          if (!elementOf(next.id)) ui.canvas?.reveal({ ...next.position, ...sizeOf(next) });
          focusNode(next.id, REVEAL_FRAMES);
        }
      }
    } else if (event.key === "ContextMenu" || (event.key === "F10" && event.shiftKey)) {
      if (!node.selected) selectOnly(node);
      const box = el.getBoundingClientRect();
      const screen = { x: box.left + 12, y: box.top + 12 };
      ui.contextMenu = { screen, flow: flow.screenToFlowCoordinate(screen), nodeId: node.id };
    } else return;
    event.preventDefault();
  }

  return { onKeydown, focusNode };
}
