import { onBeforeUnmount, onMounted } from "vue";
import { matchShortcut, type ShortcutAction } from "./shortcuts.ts";
import { useUiStore } from "../../shared/ui/ui-store.ts";
import { useEditorActions } from "./core/useEditorActions.ts";
import { keyboardQuickAdd } from "./palette/openQuickAdd.ts";
import { useNodesStore } from "../../shared/workflow/nodes-store.ts";
import { useWorkflowsStore } from "../../shared/workflow/workflows-store.ts";

/** True when the key belongs to a text field (typing must never trigger canvas shortcuts). */
function typingIn(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || !el.tagName) return false;
  return el.isContentEditable || el.tagName === "TEXTAREA" || el.tagName === "SELECT" || (el.tagName === "INPUT" && !["checkbox", "radio", "button"].includes((el as HTMLInputElement).type));
}

/** True for a focused control that Space activates itself (a button, a tab, a node of the canvas). */
function pressingControl(event: KeyboardEvent): boolean {
  const el = event.target;
  return event.key === " " && el instanceof HTMLElement && el.closest("button, a[href], summary, [role], [tabindex]") !== null;
}

/** Actions that still work while a text field has the focus. */
const GLOBAL: ReadonlySet<ShortcutAction> = new Set(["save", "run", "runFromSelected", "cancelRun", "escape"]);

/** Binds the shortcuts of lib/shortcuts.ts to the editor's actions for the life of the component. */
export function useKeyboardShortcuts() {
  const ui = useUiStore();
  const actions = useEditorActions();
  const nodes = useNodesStore();
  const workflows = useWorkflowsStore();

  function perform(action: ShortcutAction) {
    switch (action) {
      case "save":
        return void actions.save();
      case "run":
        return actions.run();
      case "runFromSelected":
        return actions.runFromSelected();
      case "cancelRun":
        return actions.cancelRun();
      case "undo":
        return void actions.undo();
      case "redo":
        return void actions.redo();
      case "copy":
        return void actions.copy();
      case "cut":
        return void actions.cut();
      case "paste":
        return actions.paste();
      case "duplicate":
        return actions.duplicate();
      case "delete":
        return actions.deleteSelection();
      case "selectAll":
        return ui.canvas?.selectAll();
      case "quickAdd":
        ui.quickAdd = keyboardQuickAdd(workflows.active?.doc, { ui, nodes });
        return;
      case "help":
        ui.helpOpen = !ui.helpOpen;
        return;
      case "fitView":
        return ui.canvas?.fitView();
      case "zoomIn":
        return ui.canvas?.zoomIn();
      case "zoomOut":
        return ui.canvas?.zoomOut();
      case "autoLayout":
        return void actions.autoLayout();
      case "frame":
        return actions.addFrame();
      case "comment":
        return actions.addComment();
      case "collapse":
        return actions.toggleCollapse();
      case "createSkill":
        return void actions.createSkill();
      case "newWorkflow":
        return void actions.newWorkflow();
      case "toggleTheme":
        return ui.toggleTheme();
      case "escape":
        if (ui.quickAdd) ui.quickAdd = null;
        else if (ui.helpOpen) ui.helpOpen = false;
        else ui.canvas?.clearSelection();
        return;
      default: {
        const never: never = action;
        return never;
      }
    }
  }

  function onKeyDown(event: KeyboardEvent) {
    if (event.defaultPrevented || event.isComposing) return;
    const action = matchShortcut(event);
    if (!action) return;
    // The editor's shortcuts act on the canvas: in the other views only the theme toggle applies.
    if (ui.view !== "editor" && action !== "toggleTheme") return;
    const modal = ui.confirmRequest || ui.promptRequest || ui.runDialogOpen || ui.interfaceEditorOpen || ui.quickAdd || ui.connectFor || ui.contextMenu || ui.helpOpen || ui.settingsOpen;
    if (modal && action !== "escape") return;
    if ((typingIn(event.target) && !GLOBAL.has(action)) || pressingControl(event)) return;
    event.preventDefault();
    perform(action);
  }

  onMounted(() => window.addEventListener("keydown", onKeyDown));
  onBeforeUnmount(() => window.removeEventListener("keydown", onKeyDown));
  return { perform };
}
