import { computed, inject, provide, type ComputedRef, type InjectionKey } from "vue";
import type { NodeSpec, ValidationIssue, Workflow, WorkflowEdge } from "@weft/types";
import type { RunView } from "../../runs/index.ts";
import type { Size } from "../../../shared/graph/node-size.ts";

/** What every node and edge on one canvas needs to know about that canvas. */
export interface CanvasContext {
  tabId: string;
  readonly: ComputedRef<boolean>;
  doc: ComputedRef<Workflow>;
  run: ComputedRef<RunView | undefined>;
  /** Zoomed out far: nodes draw a light version of themselves. */
  lowDetail: ComputedRef<boolean>;
  /** Edges into each node, by input port, in order. */
  incoming: ComputedRef<Map<string, Map<string, WorkflowEdge[]>>>;
  /** The output ports of each node that have edges. */
  outgoing: ComputedRef<Map<string, Set<string>>>;
  lookup: (type: string) => NodeSpec | undefined;
  /** The server's graph problems, by the node they concern. */
  issues: ComputedRef<Map<string, ValidationIssue[]>>;
  /** A node's size as Vue Flow last measured it, also after a large graph's culling took it from Vue Flow (the editor's canvas; the minimap reads it). */
  measured?: (id: string) => Size | undefined;
  /** Hands these workflow nodes to Vue Flow now, wherever they are (a large graph's culling holds only those near the view). */
  hold?: (ids: Iterable<string>) => void;
}

const KEY: InjectionKey<CanvasContext> = Symbol("weft-canvas");

export function provideCanvasContext(context: Omit<CanvasContext, "incoming" | "outgoing" | "issues"> & { issueList: ComputedRef<ValidationIssue[]> }): CanvasContext {
  const incoming = computed(() => {
    const map = new Map<string, Map<string, WorkflowEdge[]>>();
    for (const e of context.doc.value.edges) {
      let ports = map.get(e.target);
      if (!ports) map.set(e.target, (ports = new Map()));
      const list = ports.get(e.targetHandle);
      if (list) list.push(e);
      else ports.set(e.targetHandle, [e]);
    }
    return map;
  });
  const outgoing = computed(() => {
    const map = new Map<string, Set<string>>();
    for (const e of context.doc.value.edges) {
      const set = map.get(e.source);
      if (set) set.add(e.sourceHandle);
      else map.set(e.source, new Set([e.sourceHandle]));
    }
    return map;
  });
  const { issueList, ...rest } = context;
  const issues = computed(() => {
    const map = new Map<string, ValidationIssue[]>();
    for (const issue of issueList.value) {
      const ids = issue.nodeId ? [issue.nodeId] : (issue.nodeIds ?? []);
      for (const id of ids) map.set(id, [...(map.get(id) ?? []), issue]);
    }
    return map;
  });
  const full: CanvasContext = { ...rest, incoming, outgoing, issues };
  provide(KEY, full);
  return full;
}

export function useCanvasContext(): CanvasContext {
  const context = inject(KEY);
  if (!context) throw new Error("useCanvasContext() is only available inside FlowCanvas");
  return context;
}
