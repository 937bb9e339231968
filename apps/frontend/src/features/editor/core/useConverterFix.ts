import type { PortType } from "@weft/types";
import { findConverter, insertConverterCommand, type Link } from "../../../shared/graph/converter.ts";
import { useNodesStore } from "../../../shared/workflow/nodes-store.ts";
import { useUiStore, type ToastAction } from "../../../shared/ui/ui-store.ts";
import { useWorkflowsStore } from "../../../shared/workflow/workflows-store.ts";

/** The fix for a type mismatch: the converter node to put in between, offered as an action, inserted on click. */
export function useConverterFix() {
  const nodes = useNodesStore();
  const workflows = useWorkflowsStore();
  const ui = useUiStore();

  /** "Insert Split text" for `link`, or null when no node converts `from` into `to`. */
  function fixFor(link: Link, from: PortType, to: PortType, replaceEdge?: string): ToastAction | null {
    const converter = findConverter(nodes.specs, from, to);
    if (!converter) return null;
    return {
      label: `Insert ${converter.spec.title}`,
      run: () => {
        const tab = workflows.active;
        if (!tab || workflows.isReadonly(tab)) return;
        const { command, nodeId } = insertConverterCommand(tab.doc, converter, link, replaceEdge);
        workflows.exec(command, `Insert ${converter.spec.title}`);
        setTimeout(() => ui.canvas?.showNode(nodeId), 0);
      },
    };
  }
  return { fixFor };
}
