import { SKILL_NODE_TYPE, workflowInterface, type Workflow, type WorkflowNode } from "@weft/types";
import { api } from "../../../shared/api/client.ts";
import { copySelection, parseClipText, pasteClip, type Clip } from "./clipboard.ts";
import type { Annotation, GraphCommand, Position } from "../../../shared/graph/commands.ts";
import { checkConnection, connectCommand, type ConnectionRequest } from "../../../shared/graph/connection.ts";
import { annotationFlowId, DEFAULT_FRAME_SIZE, splitFlowIds } from "./flow-elements.ts";
import { IdAllocator, newWorkflowId } from "../../../shared/graph/ids.ts";
import { DEFAULT_NODE_SIZE } from "../../../shared/graph/node-size.ts";
import { createNode } from "../../../shared/graph/node-factory.ts";
import { recordUse } from "./node-usage.ts";
import { isInterfaceType, type PortChoice } from "./port-choice.ts";
import { besideNode, keepInView } from "./placement.ts";
import { createSkillNode, skillIdOfEntry } from "../../../shared/graph/skill-entries.ts";
import { extractSkill } from "./skill-from-selection.ts";
import { exportFileName, parseWorkflowJson, workflowToJson } from "./workflow-io.ts";
import { useAccountStore, VIEWER_NOTE } from "../../account/index.ts";
import { useClipStore } from "./clip-store.ts";
import { useNodesStore } from "../../../shared/workflow/nodes-store.ts";
import { useRunsStore } from "../../runs/index.ts";
import { useUiStore } from "../../../shared/ui/ui-store.ts";
import { useWorkflowsStore } from "../../../shared/workflow/workflows-store.ts";
import { useAutoLayout } from "./useAutoLayout.ts";

/** Every user action of the editor, shared by the toolbar, menus and keyboard shortcuts. */
export function useEditorActions() {
  const workflows = useWorkflowsStore();
  const nodes = useNodesStore();
  const runs = useRunsStore();
  const ui = useUiStore();
  const clips = useClipStore();
  const account = useAccountStore();
  /** Saving and running need the editor role: a viewer's shortcut says why instead of a refusal from the server. */
  const mayChange = () => {
    if (account.can("editor")) return true;
    ui.toast("info", VIEWER_NOTE);
    return false;
  };

  const editable = () => {
    const tab = workflows.active;
    if (!tab) return null;
    if (tab.readonly) {
      ui.toast("info", "This is a snapshot of a past run; it cannot be edited.");
      return null;
    }
    if (workflows.isReadonly(tab)) {
      ui.toast("info", VIEWER_NOTE);
      return null;
    }
    return tab;
  };
  const selected = () => splitFlowIds(ui.selection);
  const selectAfter = (flowIds: string[]) => setTimeout(() => ui.canvas?.select(flowIds), 0);
  const viewCenter = (): Position => ui.canvas?.viewCenter() ?? { x: 0, y: 0 };

  /** A new node of a palette entry's type; a skill's entry (`skill:<id>`) gives a `core:skill` node calling it. */
  function newNode(doc: Workflow, type: string, at: Position): WorkflowNode | undefined {
    const skillId = skillIdOfEntry(type);
    const spec = nodes.lookup(skillId === null ? type : SKILL_NODE_TYPE);
    if (!spec) return undefined;
    if (skillId === null) return createNode(doc, spec, at);
    const summary = workflows.summaries.find((s) => s.id === skillId);
    return summary ? createSkillNode(doc, spec, summary, at) : undefined;
  }

  /**
   * Adds a node of a palette entry's type at `at`; with `wire`, also connects it to that node's port
   * through the chosen port pair (an interface node takes the wire's type). Returns the new node's id
   * and, when wired, the edge drawn (null when the connection was refused, which a toast explains).
   */
  function addNode(type: string, at: Position, wire?: { nodeId: string; fromSide: "source" | "target"; choice: PortChoice }): string | undefined {
    const tab = editable();
    if (!tab) return undefined;
    const created = newNode(tab.doc, type, at);
    const node = created && wire && isInterfaceType(created.type) ? { ...created, config: { ...created.config, portType: wire.choice.from.type } } : created;
    const spec = node && nodes.lookup(node.type);
    if (!node || !spec) return undefined;
    const commands: GraphCommand[] = [{ kind: "add", elements: { nodes: [node], edges: [], annotations: [] } }];
    if (wire) {
      const withNode = { ...tab.doc, nodes: [...tab.doc.nodes, node] };
      const request =
        wire.fromSide === "source"
          ? { source: wire.nodeId, sourceHandle: wire.choice.from.id, target: node.id, targetHandle: wire.choice.to.id }
          : { source: node.id, sourceHandle: wire.choice.to.id, target: wire.nodeId, targetHandle: wire.choice.from.id };
      const check = checkConnection(withNode, nodes.lookup, request);
      if (check.ok) commands.push(connectCommand(request, check));
      else ui.toast("warning", `${spec.title} added, not connected: ${check.reason}`);
    }
    workflows.exec({ kind: "batch", commands }, `Add ${spec.title}`);
    recordUse(type);
    selectAfter([node.id]);
    return node.id;
  }

  /** Where a node added without the mouse goes: right of the one selected node, else at the view's centre; always on screen. */
  function placeForNew(): Position {
    const anchor = ui.singleSelected ? workflows.active?.doc.nodes.find((n) => n.id === ui.singleSelected) : undefined;
    const at = anchor
      ? besideNode({ ...anchor.position, ...(ui.canvas?.sizeOf(anchor.id) ?? DEFAULT_NODE_SIZE) }, DEFAULT_NODE_SIZE, "source")
      : { x: viewCenter().x - DEFAULT_NODE_SIZE.width / 2, y: viewCenter().y - DEFAULT_NODE_SIZE.height / 2 };
    return ui.canvas ? keepInView(at, DEFAULT_NODE_SIZE, ui.canvas.visibleRect()) : at;
  }

  /** Adds a node without the mouse (see placeForNew); the focus moves to it. */
  function addNodeByKeyboard(type: string) {
    const id = addNode(type, placeForNew());
    if (id) ui.canvas?.focusNode(id);
  }

  function connect(request: ConnectionRequest) {
    const tab = editable();
    if (!tab) return;
    const check = checkConnection(tab.doc, nodes.lookup, request);
    if (!check.ok) {
      ui.toast("warning", `Not connected: ${check.reason}`);
      return;
    }
    workflows.exec(connectCommand(request, check), "Connect");
  }

  function deleteSelection() {
    const tab = editable();
    if (!tab) return;
    const { nodes: nodeIds, annotations } = selected();
    const edges = ui.selectedEdges;
    if (nodeIds.length + annotations.length + edges.length === 0) return;
    workflows.exec({ kind: "remove", ids: { nodes: nodeIds, edges, annotations } }, "Delete");
  }

  function copy(): Clip | null {
    const tab = workflows.active;
    if (!tab) return null;
    const selection = selected();
    if (selection.nodes.length + selection.annotations.length === 0) return null;
    const clip = copySelection(tab.doc, selection);
    clips.keep(clip);
    return clip;
  }

  function cut(): Clip | null {
    const clip = copy();
    if (clip) deleteSelection();
    return clip;
  }

  function pasteClipAt(clip: Clip, at: Position, label = "Paste") {
    const tab = editable();
    if (!tab) return;
    const paste = pasteClip(tab.doc, clip, at);
    workflows.exec(paste.command, label);
    selectAfter([...paste.nodeIds, ...paste.annotationIds.map(annotationFlowId)]);
  }

  /** Pastes clipboard text (system clipboard), else the last copy of this page. */
  function paste(text?: string) {
    let clip = clips.clip;
    if (text !== undefined && text.trim()) {
      const parsed = parseClipText(text);
      if (!parsed.ok) {
        ui.toast("warning", `Nothing pasted: ${parsed.reason}.`);
        return;
      }
      clip = parsed.clip;
    }
    if (!clip) return;
    pasteClipAt(clip, ui.pointer ?? viewCenter());
  }

  function duplicate() {
    const tab = workflows.active;
    if (!tab) return;
    const clip = copySelection(tab.doc, selected());
    if (clip.nodes.length + clip.annotations.length === 0) return;
    const xs = [...clip.nodes.map((n) => n.position.x), ...clip.annotations.map((a) => a.position.x)];
    const ys = [...clip.nodes.map((n) => n.position.y), ...clip.annotations.map((a) => a.position.y)];
    pasteClipAt(clip, { x: Math.min(...xs) + 40, y: Math.min(...ys) + 40 }, "Duplicate");
  }

  function bounds(nodeIds: string[], doc: Workflow) {
    const boxes = doc.nodes.filter((n) => nodeIds.includes(n.id)).map((n) => ({ ...n.position, ...(ui.canvas?.sizeOf(n.id) ?? DEFAULT_NODE_SIZE) }));
    if (boxes.length === 0) return null;
    const x = Math.min(...boxes.map((b) => b.x));
    const y = Math.min(...boxes.map((b) => b.y));
    return { x, y, width: Math.max(...boxes.map((b) => b.x + b.width)) - x, height: Math.max(...boxes.map((b) => b.y + b.height)) - y };
  }

  function addFrame() {
    const tab = editable();
    if (!tab) return;
    const box = bounds(selected().nodes, tab.doc);
    const id = IdAllocator.forWorkflow(tab.doc).next("frame");
    const frame: Annotation = box
      ? { id, kind: "frame", position: { x: box.x - 30, y: box.y - 56 }, size: { width: box.width + 60, height: box.height + 86 }, text: "Group" }
      : { id, kind: "frame", position: viewCenter(), size: DEFAULT_FRAME_SIZE, text: "Group" };
    workflows.exec({ kind: "add", elements: { nodes: [], edges: [], annotations: [frame] } }, "Add frame");
    selectAfter([annotationFlowId(id)]);
  }

  function addComment(at?: Position) {
    const tab = editable();
    if (!tab) return;
    const id = IdAllocator.forWorkflow(tab.doc).next("comment");
    const comment: Annotation = { id, kind: "comment", position: at ?? ui.pointer ?? viewCenter(), size: { width: 220, height: 90 }, text: "" };
    ui.focusAnnotation = id;
    workflows.exec({ kind: "add", elements: { nodes: [], edges: [], annotations: [comment] } }, "Add comment");
  }

  function toggleCollapse() {
    const tab = editable();
    if (!tab) return;
    const ids = selected().nodes;
    const targets = tab.doc.nodes.filter((n) => ids.includes(n.id));
    if (targets.length === 0) return;
    const collapse = !targets.every((n) => n.ui?.collapsed === true);
    workflows.exec(
      { kind: "batch", commands: targets.map((n) => ({ kind: "update-node", id: n.id, patch: { ui: { ...n.ui, collapsed: collapse } } }) as GraphCommand) },
      collapse ? "Collapse" : "Expand",
    );
  }

  async function createSkill() {
    const tab = editable();
    if (!tab) return;
    const ids = selected().nodes;
    if (ids.length === 0) {
      ui.toast("info", "Select the nodes that should become the skill first.");
      return;
    }
    const name = await ui.prompt({
      title: "Create a skill from the selection",
      message: `The ${ids.length} selected node(s) become a new workflow with an interface, and are replaced here by one skill node.`,
      value: "New skill",
      check: (v) => (v.trim() ? null : "give the skill a name"),
    });
    if (name === null) return;
    const result = extractSkill(tab.doc, ids, nodes.lookup, { id: newWorkflowId(name), name: name.trim() });
    if (!result.ok) {
      ui.toast("warning", `No skill created: ${result.reason}.`);
      return;
    }
    const created = await api.createWorkflow(result.value.skill);
    if (!created.ok) {
      ui.apiError("Could not create the skill", created.error);
      return;
    }
    workflows.exec(result.value.command, "Create skill", { tabId: tab.id });
    selectAfter([result.value.skillNodeId]);
    void workflows.refreshList();
    ui.toast("success", `Skill "${created.value.name}" created (${created.value.id}).`);
  }

  function run() {
    if (!mayChange()) return;
    const tab = editable();
    if (!tab) return;
    if (workflowInterface(tab.doc).inputs.length > 0) ui.runDialogOpen = true;
    else void runs.start(tab.id, { inputs: {} });
  }

  function runFromSelected() {
    if (!mayChange()) return;
    const tab = editable();
    if (!tab) return;
    const ids = selected().nodes;
    if (ids.length !== 1) {
      ui.toast("info", "Select one node to re-run from it.");
      return;
    }
    void runs.start(tab.id, { inputs: runs.lastInputs(tab.doc.id), rerunFrom: ids[0] });
  }

  function cancelRun() {
    const view = runs.shownRun(workflows.activeId);
    if (view && (view.status === "running" || view.status === "queued")) void runs.cancel(view.runId);
  }

  function exportJson() {
    const tab = workflows.active;
    if (!tab) return;
    const blob = new Blob([workflowToJson(tab.doc)], { type: "application/json" });
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = exportFileName(tab.doc);
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  }

  async function importFile(file: File) {
    const parsed = parseWorkflowJson(await file.text(), file.name);
    if (!parsed.ok) {
      ui.toast("error", parsed.reason);
      return;
    }
    await workflows.importDocument(parsed.workflow);
  }

  return {
    addNode,
    addNodeByKeyboard,
    connect,
    deleteSelection,
    copy,
    cut,
    paste,
    duplicate,
    addFrame,
    addComment,
    toggleCollapse,
    autoLayout: useAutoLayout(),
    createSkill,
    run,
    runFromSelected,
    cancelRun,
    exportJson,
    importFile,
    save: () => (mayChange() ? workflows.save() : undefined),
    undo: () => workflows.undo(),
    redo: () => workflows.redo(),
    newWorkflow: () => workflows.create(),
  };
}
