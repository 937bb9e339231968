import { onScopeDispose, watch } from "vue";
import { useWorkflowsStore } from "./workflows-store.ts";

/** How long edits settle before the tabs are written, and before shown problems are checked again. */
const REMEMBER_AFTER_MS = 400;
const RECHECK_AFTER_MS = 600;

/**
 * The editor's background work on its tabs, for as long as the calling scope lives: open tabs and
 * unsaved drafts are written for the next visit (debounced, and at once when the page goes away),
 * and while a tab shows problems, each edit is checked again so fixed problems go away.
 */
export function useWorkflowMemory(): void {
  const workflows = useWorkflowsStore();

  let rememberTimer: ReturnType<typeof setTimeout> | undefined;
  watch(
    () => [workflows.activeId, workflows.tabs.map((t) => [t.id, t.doc, t.saved])],
    () => {
      clearTimeout(rememberTimer);
      rememberTimer = setTimeout(() => workflows.rememberTabs(), REMEMBER_AFTER_MS);
    },
  );
  // A reload right after an edit must not lose it to the debounce.
  const onPageHide = () => workflows.rememberTabs();
  addEventListener("pagehide", onPageHide);

  const recheckTimers = new Map<string, ReturnType<typeof setTimeout>>();
  watch(
    () => workflows.tabs.map((t) => [t.id, t.doc] as const),
    (now, before) => {
      const previous = new Map(before ?? []);
      for (const [id, doc] of now) {
        const t = workflows.tab(id);
        if (!t || t.issues.length === 0 || previous.get(id) === doc) continue;
        clearTimeout(recheckTimers.get(id));
        recheckTimers.set(
          id,
          setTimeout(() => void workflows.checkIssues(id), RECHECK_AFTER_MS),
        );
      }
    },
  );

  onScopeDispose(() => {
    clearTimeout(rememberTimer);
    for (const timer of recheckTimers.values()) clearTimeout(timer);
    removeEventListener("pagehide", onPageHide);
  });
}
