import { defineStore } from "pinia";
import { computed, markRaw, ref, shallowRef } from "vue";
import { WorkflowSchema, type ValidationIssue, type Workflow } from "@weft/types";
import { api, revisionConflict } from "../api/client.ts";
import type { ApiError } from "../api/errors.ts";
import type { WorkflowSummary } from "../api/schemas.ts";
import { applyCommand, isEmptyCommand, type GraphCommand } from "../graph/commands.ts";
import { deepEqual } from "../lib/deep-equal.ts";
import { idNamesWorkflow, newWorkflowId } from "../graph/ids.ts";
import { useHistoryStore } from "./history-store.ts";
import type { Conflict, EditorTab } from "./editor-tab.ts";
import { remembersTab, remembersTabs, restoreTabs, writeTabsMemory } from "./tabs-memory.ts";
import { useUiStore } from "../ui/ui-store.ts";

export type { Conflict, EditorTab };

/** The name of a new workflow until its first save asks for one. */
const UNTITLED = "Untitled workflow";

/** Open workflow documents (tabs), their edits, saving with revision checks, import and export. */
export const useWorkflowsStore = defineStore("workflows", () => {
  const ui = useUiStore();
  const history = useHistoryStore();

  const tabs = ref<EditorTab[]>([]);
  const activeId = ref<string | null>(null);
  const summaries = shallowRef<WorkflowSummary[]>([]);
  const summariesError = shallowRef<ApiError | null>(null);

  const active = computed(() => tabs.value.find((t) => t.id === activeId.value) ?? null);
  const tab = (id: string) => tabs.value.find((t) => t.id === id) ?? null;
  /**
   * The signed-in role may not change workflows (a viewer): every tab is shown, never edited. Set by the
   * shell from the account; the server refuses a viewer's writes anyway, this keeps the editor from inviting them.
   */
  const viewOnly = ref(false);
  /** Whether a tab takes no edits: a past run's snapshot, or any tab for a viewer. */
  const isReadonly = (t: EditorTab) => t.readonly || viewOnly.value;
  const isDirty = (t: EditorTab) => !isReadonly(t) && (t.saved === null || !deepEqual(t.doc, t.saved));

  function addTab(doc: Workflow, saved: Workflow | null, options: { readonly?: boolean; builtIn?: boolean; id?: string; idFromName?: boolean } = {}): EditorTab {
    const entry: EditorTab = {
      id: options.id ?? doc.id,
      doc: markRaw(doc),
      saved: saved ? markRaw(saved) : null,
      saving: false,
      saveError: null,
      conflict: null,
      readonly: !!options.readonly || !!options.builtIn,
      ...(options.builtIn ? { builtIn: true } : {}),
      issues: [],
      ...(options.idFromName ? { idFromName: true } : {}),
    };
    tabs.value.push(entry);
    activeId.value = entry.id;
    return tabs.value[tabs.value.length - 1];
  }

  async function refreshList() {
    const result = await api.listWorkflows();
    if (result.ok) {
      summaries.value = result.value;
      summariesError.value = null;
    } else summariesError.value = result.error;
    return result;
  }

  function fetchStored(id: string) {
    return api.getWorkflow(id);
  }

  /** The workflow the editor opens first, requested while the app starts (one, taken by the first `open` of it). */
  let ahead: { id: string; fetched: ReturnType<typeof fetchStored> } | null = null;

  /**
   * Starts fetching the workflow the editor will open first (a link's, or the first listed), so the
   * request and its check run while the app starts instead of after it: `open(id)` takes the answer.
   */
  function fetchAhead(id: string): void {
    // A tab open or remembered has its own fetch (restore's).
    if (tab(id) || remembersTab(id)) return;
    ahead = { id, fetched: fetchStored(id) };
  }

  function takeAhead(id: string): ReturnType<typeof fetchStored> | undefined {
    if (ahead?.id !== id) return undefined;
    const { fetched } = ahead;
    ahead = null;
    return fetched;
  }

  /** Opens a stored workflow in a tab (or switches to its tab), with the answer of `fetchAhead(id)` when there is one. */
  async function open(id: string): Promise<EditorTab | null> {
    const early = takeAhead(id);
    const existing = tab(id);
    if (existing) {
      activeId.value = id;
      return existing;
    }
    const result = await (early ?? fetchStored(id));
    if (!result.ok) {
      ui.apiError(`Could not open workflow "${id}"`, result.error);
      return null;
    }
    // A second click (a double-click) may have opened it while this one waited for the server.
    const opened = tab(id);
    if (opened) {
      activeId.value = id;
      return opened;
    }
    return addTab(result.value.workflow, result.value.workflow, { builtIn: !!result.value.builtIn });
  }

  /**
   * Copies a stored workflow on the server (a new id, "… (copy)") and opens the copy: how a template
   * or a built-in workflow is started from, the original staying as it is.
   */
  async function openCopy(id: string): Promise<EditorTab | null> {
    const result = await api.duplicateWorkflow(id);
    if (!result.ok) {
      ui.apiError(`Could not copy workflow "${id}"`, result.error);
      return null;
    }
    void refreshList();
    return addTab(result.value, result.value);
  }

  function create(name = UNTITLED): EditorTab {
    const doc = WorkflowSchema.parse({ id: newWorkflowId(name), name, nodes: [] });
    return addTab(doc, null, { idFromName: true });
  }

  /**
   * A new workflow renamed before its first save gets an id from its name then, once: from the first
   * save on, the id is what links, skills and runs name, so it never changes again.
   */
  function idFromCurrentName(t: EditorTab) {
    if (!t.idFromName || t.saved !== null) return;
    t.idFromName = false;
    if (idNamesWorkflow(t.doc.id, t.doc.name)) return;
    const id = newWorkflowId(t.doc.name);
    history.rename(t.id, id);
    if (activeId.value === t.id) activeId.value = id;
    t.id = id;
    t.doc = markRaw({ ...t.doc, id });
  }

  /** Opens a document as a new, unsaved tab (import, a skill made from a selection before saving). */
  function openDraft(doc: Workflow): EditorTab {
    const free = tab(doc.id) ? { ...doc, id: newWorkflowId(doc.name) } : doc;
    return addTab({ ...free, revision: 0 }, null);
  }

  function openSnapshot(runId: string, doc: Workflow): EditorTab {
    const id = `run:${runId}`;
    const existing = tab(id);
    if (existing) {
      activeId.value = id;
      return existing;
    }
    return addTab(doc, doc, { readonly: true, id });
  }

  async function close(id: string, options: { force?: boolean } = {}): Promise<boolean> {
    const t = tab(id);
    if (!t) return true;
    if (!options.force && isDirty(t)) {
      const choice = await ui.confirm({
        title: "Close with unsaved changes?",
        message: `"${t.doc.name}" has changes that are not saved.`,
        choices: [
          { id: "save", label: "Save and close", kind: "primary" },
          { id: "discard", label: "Discard changes", kind: "danger" },
        ],
      });
      if (choice === null) return false;
      if (choice === "save" && !(await save(id))) return false;
    }
    const index = tabs.value.findIndex((x) => x.id === id);
    tabs.value.splice(index, 1);
    history.clear(id);
    if (activeId.value === id) activeId.value = tabs.value[Math.min(index, tabs.value.length - 1)]?.id ?? null;
    return true;
  }

  /** Applies an edit to a tab's document and records it for undo. */
  function exec(command: GraphCommand, label: string, options: { tabId?: string; coalesceKey?: string } = {}): Workflow | null {
    const t = options.tabId ? tab(options.tabId) : active.value;
    if (!t || isReadonly(t) || isEmptyCommand(command)) return null;
    const applied = applyCommand(t.doc, command);
    t.doc = markRaw(applied.doc);
    history.push(t.id, { label, command, inverse: applied.inverse, coalesceKey: options.coalesceKey });
    return applied.doc;
  }

  function undo(tabId = activeId.value) {
    const t = tabId ? tab(tabId) : null;
    if (!t || isReadonly(t)) return null;
    const result = history.stepBack(t.id, t.doc);
    if (result) t.doc = markRaw(result.doc);
    return result?.entry ?? null;
  }

  function redo(tabId = activeId.value) {
    const t = tabId ? tab(tabId) : null;
    if (!t || isReadonly(t)) return null;
    const result = history.stepForward(t.id, t.doc);
    if (result) t.doc = markRaw(result.doc);
    return result?.entry ?? null;
  }

  /**
   * Saves a tab: creates the workflow the first time, else updates it from the revision it was
   * based on. A conflict is kept on the tab for the user to decide; nothing is overwritten.
   */
  async function save(tabId = activeId.value, options: { overwrite?: boolean } = {}): Promise<boolean> {
    const t = tabId ? tab(tabId) : null;
    if (!t || isReadonly(t) || t.saving) return false;
    if (t.saved === null && !(await nameFirstSave(t))) return false;
    idFromCurrentName(t);
    t.saving = true;
    t.saveError = null;
    const sent = t.doc;
    const baseRevision = options.overwrite && t.conflict ? t.conflict.currentRevision : (t.saved?.revision ?? 0);
    const result = t.saved === null ? await api.createWorkflow(sent) : await api.updateWorkflow(sent, baseRevision);
    t.saving = false;
    if (!result.ok) {
      const conflict = revisionConflict(result.error);
      if (conflict) t.conflict = conflict;
      else {
        t.saveError = result.error;
        ui.apiError(`Could not save "${sent.name}"`, result.error);
      }
      return false;
    }
    const stored = result.value;
    t.conflict = null;
    t.saved = markRaw(stored);
    // Edits made while the request was on its way stay; they just move onto the new revision.
    t.doc = markRaw(t.doc === sent ? stored : { ...t.doc, revision: stored.revision });
    void refreshList();
    return true;
  }

  /**
   * A workflow is stored (and listed, and offered as a skill) only once its user has named it: the
   * first save asks for the name. Cancelling saves nothing.
   */
  async function nameFirstSave(t: EditorTab): Promise<boolean> {
    const name = await ui.prompt({
      title: "Save workflow",
      message: "Name the workflow. Saved workflows are listed under Workflows and can be used as skills.",
      value: t.doc.name === UNTITLED ? "" : t.doc.name,
      check: (value) => (value.trim() === "" ? "Give the workflow a name." : null),
    });
    if (name === null) return false;
    if (name.trim() !== t.doc.name) exec({ kind: "update-meta", patch: { name: name.trim() } }, "Rename workflow", { tabId: t.id });
    return true;
  }

  /** Conflict resolution: take the stored version (the local edits are dropped) or write ours over it. */
  async function resolveConflict(tabId: string, choice: "theirs" | "mine") {
    const t = tab(tabId);
    if (!t?.conflict) return;
    if (choice === "theirs") {
      t.doc = markRaw(t.conflict.current);
      t.saved = markRaw(t.conflict.current);
      t.conflict = null;
      history.clear(t.id);
      return;
    }
    await save(tabId, { overwrite: true });
  }

  /** "Decide later": the dialog closes and the edits stay; the next save meets the conflict again. */
  function dismissConflict(tabId: string) {
    const t = tab(tabId);
    if (t) t.conflict = null;
  }

  function setActive(id: string) {
    if (tab(id)) activeId.value = id;
  }

  async function importDocument(doc: Workflow): Promise<EditorTab | null> {
    const result = await api.importWorkflow(doc);
    if (!result.ok) {
      ui.apiError(`Could not import "${doc.name}"`, result.error);
      return null;
    }
    void refreshList();
    if (result.value.id !== doc.id) ui.toast("info", `Imported as "${result.value.id}" because "${doc.id}" was taken.`);
    return addTab(result.value, result.value);
  }

  async function remove(id: string): Promise<boolean> {
    const result = await api.deleteWorkflow(id);
    if (!result.ok) {
      ui.apiError(`Could not delete "${id}"`, result.error);
      return false;
    }
    const t = tab(id);
    if (t) await close(id, { force: true });
    void refreshList();
    return true;
  }

  /** Writes the open tabs and unsaved drafts for the next visit (when: useWorkflowMemory). */
  function rememberTabs() {
    if (!writeTabsMemory(tabs.value, activeId.value, isDirty)) ui.toast("warning", "This browser refused to keep a copy of your unsaved drafts (storage full). Save to keep them.");
  }

  /** Reopens the tabs of the last visit (tabs-memory.ts); they open once `ready` has settled. */
  function restore(ready: Promise<unknown> = Promise.resolve()): Promise<void> {
    return restoreTabs({ tab, addTab, activate: (id) => (activeId.value = id), warn: (message) => ui.toast("warning", message) }, ready);
  }

  /** Asks the server what is wrong with a tab's graph; the answer replaces the issues shown. */
  async function checkIssues(tabId: string): Promise<ValidationIssue[] | null> {
    const t = tab(tabId);
    if (!t) return null;
    const checked = t.doc;
    const result = await api.validateWorkflow(checked);
    if (!result.ok) {
      ui.apiError("Could not check the workflow", result.error);
      return null;
    }
    if (t.doc === checked) t.issues = result.value.issues;
    return result.value.issues;
  }

  /**
   * The stored workflow was written elsewhere (the Builder AI's apply): a tab without unsaved edits
   * shows the new revision (a deleted workflow's tab closes); a tab with edits keeps them, and its
   * next save meets the usual revision conflict.
   */
  async function reloadStored(id: string): Promise<"reloaded" | "closed" | "kept-edits" | "not-open" | "failed"> {
    void refreshList();
    const t = tab(id);
    if (!t || t.readonly) return "not-open";
    const seen = t.doc;
    if (isDirty(t)) return "kept-edits";
    const result = await api.getWorkflow(id);
    if (t.doc !== seen) return "kept-edits";
    if (!result.ok) {
      if (result.error.code === "NOT_FOUND") return (await close(id, { force: true })) ? "closed" : "failed";
      ui.apiError(`Could not reload "${t.doc.name}"`, result.error);
      return "failed";
    }
    t.doc = markRaw(result.value.workflow);
    t.saved = markRaw(result.value.workflow);
    t.conflict = null;
    t.issues = [];
    history.clear(id);
    return "reloaded";
  }

  const anyDirty = computed(() => tabs.value.some(isDirty));

  return {
    tabs,
    activeId,
    active,
    summaries,
    summariesError,
    anyDirty,
    viewOnly,
    tab,
    isReadonly,
    isDirty,
    refreshList,
    fetchAhead,
    open,
    openCopy,
    create,
    openDraft,
    openSnapshot,
    close,
    exec,
    undo,
    redo,
    save,
    resolveConflict,
    dismissConflict,
    setActive,
    importDocument,
    remove,
    remembersTabs,
    restore,
    checkIssues,
    rememberTabs,
    reloadStored,
  };
});
