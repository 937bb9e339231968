import { onBeforeUnmount, onMounted } from "vue";
import { useUiStore } from "../../shared/ui/ui-store.ts";
import { useEditorActions } from "./core/useEditorActions.ts";

function inTextField(): boolean {
  const el = document.activeElement as HTMLElement | null;
  return !!el && (el.isContentEditable || el.tagName === "INPUT" || el.tagName === "TEXTAREA");
}

/**
 * Copy, cut and paste of nodes through the system clipboard: the browser's clipboard events carry
 * the selection as JSON text, so nodes travel between tabs, windows and other programs.
 */
export function useClipboard() {
  const ui = useUiStore();
  const actions = useEditorActions();
  const blocked = () => ui.view !== "editor" || inTextField() || !!(ui.confirmRequest || ui.promptRequest || ui.runDialogOpen || ui.quickAdd || ui.interfaceEditorOpen);

  function onCopy(event: ClipboardEvent, cut = false) {
    if (blocked()) return;
    const clip = cut ? actions.cut() : actions.copy();
    if (!clip) return;
    event.clipboardData?.setData("text/plain", JSON.stringify(clip, null, 2));
    event.preventDefault();
    ui.toast("info", `${cut ? "Cut" : "Copied"} ${clip.nodes.length} node(s)${clip.annotations.length ? ` and ${clip.annotations.length} annotation(s)` : ""}.`, undefined, 2000);
  }

  function onPaste(event: ClipboardEvent) {
    if (blocked()) return;
    event.preventDefault();
    actions.paste(event.clipboardData?.getData("text/plain") ?? undefined);
  }

  const onCut = (event: ClipboardEvent) => onCopy(event, true);
  onMounted(() => {
    document.addEventListener("copy", onCopy as EventListener);
    document.addEventListener("cut", onCut as EventListener);
    document.addEventListener("paste", onPaste);
  });
  onBeforeUnmount(() => {
    document.removeEventListener("copy", onCopy as EventListener);
    document.removeEventListener("cut", onCut as EventListener);
    document.removeEventListener("paste", onPaste);
  });
}
