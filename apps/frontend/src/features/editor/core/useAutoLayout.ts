import { splitFlowIds } from "./flow-elements.ts";
import { useUiStore } from "../../../shared/ui/ui-store.ts";
import { useWorkflowsStore } from "../../../shared/workflow/workflows-store.ts";

/**
 * Auto-layout (dagre, left to right) of the selected nodes, or of the whole graph when at most one
 * node is selected, with the sizes the canvas measured; one undo step. dagre loads on first use.
 */
export function useAutoLayout() {
  const ui = useUiStore();
  const workflows = useWorkflowsStore();
  return async function autoLayout() {
    const { layoutCommand } = await import("./layout.ts");
    const tab = workflows.active;
    if (!tab || workflows.isReadonly(tab)) return;
    const ids = splitFlowIds(ui.selection).nodes;
    const whole = ids.length <= 1;
    workflows.exec(
      layoutCommand(tab.doc, (id) => ui.canvas?.sizeOf(id), whole ? [] : ids),
      "Auto-layout",
    );
    if (whole) setTimeout(() => ui.canvas?.fitView(), 50);
  };
}
