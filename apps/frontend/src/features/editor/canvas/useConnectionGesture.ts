import { shallowRef, type Ref } from "vue";
import type { Connection, OnConnectStartParams, VueFlowStore } from "@vue-flow/core";
import type { PortType, Workflow } from "@weft/types";
import { checkConnection } from "../../../shared/graph/connection.ts";
import type { Link } from "../../../shared/graph/converter.ts";
import { findPort, nodePorts } from "../../../shared/graph/ports.ts";
import { useNodesStore } from "../../../shared/workflow/nodes-store.ts";
import { useUiStore } from "../../../shared/ui/ui-store.ts";
import { useConverterFix } from "../core/useConverterFix.ts";
import { useEditorActions } from "../core/useEditorActions.ts";

/**
 * Connecting ports by dragging on one canvas: each candidate is checked as the wire moves (`refusal`
 * says why it may not connect), a drop on a port connects or explains the refusal in a toast (with
 * the converter fix when one fits), and a drop on empty canvas opens quick-add for the pending port.
 */
export function useConnectionGesture(flow: VueFlowStore, doc: Ref<Workflow>) {
  const nodes = useNodesStore();
  const ui = useUiStore();
  const actions = useEditorActions();
  const converterFix = useConverterFix();

  const refusal = shallowRef<string | null>(null);
  /** The refused connection a converter could fix, offered on release. */
  let refusedMismatch: { link: Link; from: PortType; to: PortType } | null = null;
  let connecting: OnConnectStartParams | null = null;
  let connected = false;

  function isValidConnection(connection: Connection): boolean {
    // Vue Flow also runs this on every edge it is handed; the document's edges were checked when drawn.
    if (!flow.connectionStartHandle.value) return true;
    const check = checkConnection(doc.value, nodes.lookup, connection);
    refusal.value = check.ok ? null : check.reason;
    const link = { source: connection.source, sourceHandle: connection.sourceHandle ?? "", target: connection.target, targetHandle: connection.targetHandle ?? "" };
    refusedMismatch = !check.ok && check.mismatch ? { link, ...check.mismatch } : null;
    return check.ok;
  }

  flow.onConnectStart((params) => {
    connecting = params;
    connected = false;
    refusal.value = null;
  });
  flow.onConnect((connection) => {
    connected = true;
    actions.connect(connection);
  });
  flow.onConnectEnd((event) => {
    const target = event?.target as HTMLElement | undefined;
    // The refusal shown under the pointer decides, not the element released on: a held drag near the
    // edge auto-pans the canvas away from a still pointer, and the user still saw (and meant) that port.
    const refusedPortShown = flow.connectionStatus.value === "invalid";
    if (!connected && refusedPortShown && refusal.value) {
      const fix = refusedMismatch && converterFix.fixFor(refusedMismatch.link, refusedMismatch.from, refusedMismatch.to);
      ui.toast("warning", `Not connected: ${refusal.value}`, undefined, fix ? 9000 : 4000, fix ?? undefined);
    } else if (!connected && connecting?.nodeId && target?.classList?.contains("vue-flow__pane") && event && "clientX" in event) {
      // Dropped on empty canvas: offer the nodes that fit, ComfyUI-style.
      const fromNode = doc.value.nodes.find((n) => n.id === connecting?.nodeId);
      const fromSide = connecting.handleType === "target" ? "target" : "source";
      const port = fromNode ? findPort(nodePorts(fromNode, nodes.lookup(fromNode.type))[fromSide === "source" ? "outputs" : "inputs"], connecting.handleId) : undefined;
      if (fromNode && port) {
        const screen = { x: event.clientX, y: event.clientY };
        ui.quickAdd = { screen, flow: flow.screenToFlowCoordinate(screen), pending: { nodeId: fromNode.id, fromSide, ports: [port], dragged: true } };
      }
    }
    connecting = null;
    refusal.value = null;
  });

  return { refusal, isValidConnection };
}
