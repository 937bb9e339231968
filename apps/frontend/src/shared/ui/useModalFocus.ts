import { onBeforeUnmount, watch, type Ref } from "vue";

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** Open dialogs, innermost last: only the innermost one takes keys (a confirmation over Settings). */
const openDialogs: Ref<HTMLElement | null>[] = [];

function focusables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => !el.hidden && el.getClientRects().length > 0);
}

/**
 * A modal dialog's focus (WAI-ARIA dialog pattern): while `dialog` is in the page the focus moves
 * into it (to `[autofocus]`, else the first control), Tab and Shift+Tab cycle inside it, Escape
 * calls `close` (a dialog that cannot be dismissed passes none), and when it goes the focus returns
 * to where it was. Works for a dialog shown with v-if inside its component, too. With `selectText`,
 * the text of the field it focuses is selected, so typing replaces a value kept from last time.
 */
export function useModalFocus(dialog: Ref<HTMLElement | null>, close?: () => void, options: { selectText?: boolean } = {}): void {
  let returnTo: HTMLElement | null = null;
  let shown: HTMLElement | null = null;

  function onKeydown(event: KeyboardEvent) {
    const root = dialog.value;
    if (!root || openDialogs[openDialogs.length - 1] !== dialog) return;
    if (event.key === "Escape" && close) {
      event.preventDefault();
      event.stopPropagation();
      close();
      return;
    }
    if (event.key !== "Tab") return;
    const list = focusables(root);
    const first = list[0];
    const last = list[list.length - 1];
    if (!first || !last) return event.preventDefault();
    const active = document.activeElement;
    if (event.shiftKey && (active === first || !root.contains(active))) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (active === last || !root.contains(active))) {
      event.preventDefault();
      first.focus();
    }
  }

  function restore() {
    document.removeEventListener("keydown", onKeydown, true);
    const at = openDialogs.indexOf(dialog);
    if (at >= 0) openDialogs.splice(at, 1);
    // Unless another dialog opened in its place and took the focus already.
    const active = document.activeElement;
    const free = !active || active === document.body || !!shown?.contains(active);
    if (free && returnTo?.isConnected) returnTo.focus();
    returnTo = null;
    shown = null;
  }

  watch(
    dialog,
    (root, before) => {
      if (root && !before) {
        const active = document.activeElement;
        returnTo = active instanceof HTMLElement && active !== document.body ? active : null;
        shown = root;
        // Capture phase: the dialog's keys are settled before any shortcut listener sees them.
        document.addEventListener("keydown", onKeydown, true);
        openDialogs.push(dialog);
        if (!root.contains(document.activeElement)) {
          const first = root.querySelector<HTMLElement>("[autofocus]") ?? focusables(root)[0] ?? root;
          first.focus();
          if (options.selectText && (first instanceof HTMLInputElement || first instanceof HTMLTextAreaElement)) first.select();
        }
      } else if (!root && before) restore();
    },
    { flush: "post", immediate: true },
  );
  onBeforeUnmount(restore);
}
