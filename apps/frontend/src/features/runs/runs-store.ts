import { defineStore } from "pinia";
import { markRaw, nextTick, reactive, ref, shallowReactive, shallowRef } from "vue";
import { z } from "zod";
import type { RunEvent, Workflow } from "@weft/types";
import { api, validationIssuesOf } from "../../shared/api/client.ts";
import type { RunRecord } from "../../shared/api/schemas.ts";
import type { ApiError } from "../../shared/api/errors.ts";
import { useIssueWords } from "../../shared/workflow/useIssueWords.ts";
import { useNodeTitle } from "../../shared/workflow/useNodeTitle.ts";
import { runErrorInWords, runErrorSentence } from "./run-error-words.ts";
import { useLiveSocket } from "../../shared/live/useLiveSocket.ts";
import { readLocal, writeLocal } from "../../shared/lib/local-store.ts";
import { workflowFromObservations } from "./run-graph.ts";
import { applyRunEvent, fillCachedInputs, hasCacheHits, isRunActive, isRunLive, newRunView, runViewFromObservations, type RunView } from "./run-state.ts";
import { useUiStore } from "../../shared/ui/ui-store.ts";
import { useWorkflowsStore } from "../../shared/workflow/workflows-store.ts";

const SHOWN_RUNS_KEY = "weft.shownRuns";
const INPUTS_KEY = (workflowId: string) => `weft.runInputs.${workflowId}`;
const ShownRunsSchema = z.record(z.string(), z.string());

/** Runs: starting, cancelling, the live view of each run over the WebSocket, and run history per workflow. */
export const useRunsStore = defineStore("runs", () => {
  const ui = useUiStore();
  const inWords = useIssueWords();
  const { titleOf } = useNodeTitle();
  const workflows = useWorkflowsStore();

  /** Every run loaded in this page, by run id (reactive per node, so only changed nodes re-render). */
  const views = shallowReactive(new Map<string, RunView>());
  /** The run each tab's canvas shows (by tab id). */
  const shown = reactive<Record<string, string | null>>({});
  /** Run history by workflow id, newest first. */
  const lists = shallowReactive(new Map<string, RunRecord[]>());
  /** The newest runs of every workflow (the side panel's Runs tab), once asked for. */
  const recent = shallowRef<RunRecord[] | null>(null);
  const recentError = shallowRef<ApiError | null>(null);
  /** The workflow as each loaded run ran it. */
  const snapshots = new Map<string, Workflow>();
  const starting = ref(false);
  const unsubscribers = new Map<string, () => void>();
  const { socket, status: socketStatus, reconnectNow } = useLiveSocket((error) => ui.apiError("Live updates", error));

  const viewOf = (runId: string | null | undefined) => (runId ? views.get(runId) : undefined);
  const shownRun = (tabId: string | null | undefined) => (tabId ? viewOf(shown[tabId]) : undefined);

  function listen(view: RunView) {
    if (unsubscribers.has(view.runId) || !isRunLive(view.status)) return;
    const stop = socket.subscribe(view.runId, view.lastSeq, (event) => onEvent(view, event));
    unsubscribers.set(view.runId, stop);
  }

  function onEvent(view: RunView, event: RunEvent) {
    applyRunEvent(view, event);
    if (isRunActive(view.status)) return;
    void loadList(view.workflowId);
    if (recent.value) void loadRecent();
    // A waiting run resumes on the same stream once decided: keep following it.
    if (isRunLive(view.status)) return;
    unsubscribers.get(view.runId)?.();
    unsubscribers.delete(view.runId);
    if (hasCacheHits(view)) void loadCachedInputs(view);
    if (view.status === "failed") announceFailure(view);
  }

  /** The toast of a failed run: the node by its title, the message's context laid out, and "Jump to node". */
  function announceFailure(view: RunView) {
    if (!view.error) return void ui.toast("error", "Run failed: see the failed node.");
    const words = runErrorInWords(view.error, workflowOf(view), titleOf);
    const tabId = tabShowing(view.runId);
    const at = words.nodeId;
    const jump = at && tabId ? { label: "Jump to node", run: () => void jumpToNode(tabId, at) } : undefined;
    ui.toast("error", `Run failed: ${runErrorSentence(words)}`, view.error.code, 15_000, jump, words.context);
  }

  /** The workflow a run ran: its snapshot, else the open tab of its workflow. */
  const workflowOf = (view: RunView): Workflow | undefined => snapshots.get(view.runId) ?? workflows.tab(view.workflowId)?.doc;
  /** The open tab showing a run (a closed tab keeps its entry in `shown`). */
  const tabShowing = (runId: string) => Object.keys(shown).find((tabId) => shown[tabId] === runId && !!workflows.tab(tabId));

  /** Shows a node of a tab's canvas: that tab in front (the editor view), the node selected and centred. */
  async function jumpToNode(tabId: string, nodeId: string) {
    ui.view = "editor";
    workflows.setActive(tabId);
    // The canvas of a tab just brought to the front registers itself on the next render.
    await nextTick();
    ui.canvas?.showNode(nodeId);
  }

  async function loadCachedInputs(view: RunView) {
    const result = await api.getRun(view.runId);
    if (result.ok) fillCachedInputs(view, result.value.observations);
    else ui.apiError(`Could not load the inputs of run ${view.runId}`, result.error);
  }

  /** Which run each tab shows survives a reload: a live one is followed again, a finished one shown again. */
  function rememberShown() {
    const remembered: Record<string, string> = {};
    for (const [tabId, runId] of Object.entries(shown)) if (runId && !tabId.startsWith("run:")) remembered[tabId] = runId;
    writeLocal(SHOWN_RUNS_KEY, remembered);
  }

  const lastInputs = (workflowId: string): Record<string, unknown> => readLocal(INPUTS_KEY(workflowId), z.record(z.string(), z.unknown())) ?? {};
  /** Offers example inputs to the Run dialog: kept only where the user has not run the workflow with inputs of their own. */
  function offerInputs(workflowId: string, inputs: Record<string, unknown>) {
    if (Object.keys(lastInputs(workflowId)).length === 0) writeLocal(INPUTS_KEY(workflowId), inputs);
  }

  /**
   * Runs the tab's current draft (unsaved edits included). A workflow never saved runs as an unsaved
   * draft too (the API runs `body.workflow` under its id): running stores no workflow, saving does.
   */
  async function start(tabId: string, options: { inputs?: Record<string, unknown>; rerunFrom?: string } = {}): Promise<boolean> {
    const tab = workflows.tab(tabId);
    if (!tab || tab.readonly || starting.value) return false;
    const doc = tab.doc;
    starting.value = true;
    const result = await api.startRun(doc.id, { inputs: options.inputs ?? {}, rerunFrom: options.rerunFrom, workflow: doc });
    starting.value = false;
    if (!result.ok) {
      // A graph the server refuses: its problems go onto the nodes they concern.
      tab.issues = validationIssuesOf(result.error);
      const doing = options.rerunFrom ? `Could not re-run from "${options.rerunFrom}"` : `Could not start "${doc.name}"`;
      const first = tab.issues[0] && inWords(tab.issues[0], doc);
      if (!first) ui.apiError(doing, result.error);
      else {
        // The API's message names ids and its own endpoints; the editor says it with titles, and shows the node.
        const more = tab.issues.length > 1 ? ` (and ${tab.issues.length - 1} more, marked on the nodes)` : "";
        const at = first.nodeId;
        ui.toast("error", `${doing}: ${first.text}${more}. ${first.hint}`, result.error.code, 9000, at ? { label: "Jump to node", run: () => ui.canvas?.showNode(at) } : undefined);
      }
      return false;
    }
    tab.issues = [];
    // The run is stored under this id: a never-saved workflow keeps it when first saved under a name, with its runs.
    if (tab.saved === null) tab.idFromName = false;
    if (options.inputs) writeLocal(INPUTS_KEY(doc.id), options.inputs);
    follow(
      tabId,
      result.value.runId,
      doc.id,
      doc.nodes.map((n) => n.id),
      { snapshot: doc, revision: tab.saved?.revision },
    );
    return true;
  }

  /** Shows a run that was just started on a tab and follows it live. */
  function follow(tabId: string, runId: string, workflowId: string, nodeIds: string[], known: { snapshot?: Workflow; revision?: number }) {
    const view = reactive(newRunView(runId, workflowId, nodeIds)) as RunView;
    view.workflowRevision = known.revision;
    if (known.snapshot) snapshots.set(runId, markRaw(known.snapshot));
    views.set(runId, view);
    shown[tabId] = runId;
    listen(view);
    void loadList(workflowId);
    if (recent.value) void loadRecent();
  }

  /** Runs a past run again exactly (its own workflow version and inputs). */
  async function rerunPast(tabId: string, runId: string): Promise<boolean> {
    const past = views.get(runId);
    const result = await api.rerun(runId);
    if (!result.ok) {
      ui.apiError("Could not run it again", result.error);
      return false;
    }
    const tab = workflows.tab(tabId);
    const nodeIds = past ? Object.keys(past.nodes) : (tab?.doc.nodes.map((n) => n.id) ?? []);
    const snapshot = snapshots.get(runId);
    follow(tabId, result.value.runId, past?.workflowId ?? tab?.doc.id ?? "", nodeIds, { snapshot, revision: past?.workflowRevision });
    return true;
  }

  async function cancel(runId: string) {
    const result = await api.cancelRun(runId);
    if (!result.ok) ui.apiError("Could not cancel the run", result.error);
  }

  /** Loads a run (live or past) once, with the workflow it ran; a live one is replayed up to now. */
  async function load(runId: string): Promise<RunView | null> {
    const known = views.get(runId);
    if (known && snapshots.has(runId)) return known;
    const result = await api.getRun(runId);
    if (!result.ok) {
      ui.apiError(`Could not load run ${runId}`, result.error);
      return null;
    }
    const { run, observations, workflow } = result.value;
    snapshots.set(run.id, markRaw(workflow ?? workflowFromObservations(run.workflowId, observations)));
    // A run followed live since it started only lacked its snapshot.
    if (known) return known;
    let view: RunView;
    if (isRunLive(run.status)) {
      // Still going (or waiting for a decision): replay its events so far, then follow it live from the last one.
      view = reactive(newRunView(run.id, run.workflowId, workflow?.nodes.map((n) => n.id) ?? [], run.status)) as RunView;
      view.workflowRevision = run.workflowRevision;
      const events = await api.runEvents(run.id, -1);
      if (events.ok) for (const e of events.value) applyRunEvent(view, e);
      else ui.apiError(`Could not replay run ${runId}`, events.error);
    } else {
      view = reactive(runViewFromObservations({ ...run, startedAt: run.startedAt ?? run.createdAt }, observations)) as RunView;
    }
    if (run.forkOf) view.forkOf = run.forkOf;
    views.set(runId, view);
    return view;
  }

  /** Forks a past run at a node with changed settings or inputs, and opens the fork on a tab of its own beside its parent. */
  async function fork(runId: string, body: { at: string; settings?: Record<string, unknown>; inputs?: Record<string, unknown> }): Promise<boolean> {
    const result = await api.forkRun(runId, body);
    if (!result.ok) {
      ui.apiError(`Could not fork run ${runId} at "${body.at}"`, result.error);
      return false;
    }
    return openAsItRan(result.value.runId);
  }

  /** Loads any run (live or past) and shows it on a tab's canvas. */
  async function show(tabId: string, runId: string): Promise<RunView | null> {
    const view = await load(runId);
    if (!view) return null;
    shown[tabId] = runId;
    listen(view);
    return view;
  }

  /**
   * Opens a run from wherever it is linked (run history, the Runs tab, Home, agents, scenes, an address),
   * by one rule: the run a tab already shows stays there (the editable tab's own run, started there and
   * followed live); any other run opens as it ran, read-only, on a tab of its own.
   */
  async function inspectRun(runId: string): Promise<boolean> {
    ui.view = "editor";
    const here = tabShowing(runId);
    if (here) {
      workflows.setActive(here);
      return true;
    }
    return openAsItRan(runId);
  }

  /** Opens a run as it ran, read-only, on a tab of its own (the banner says whose run it is and opens the workflow). */
  async function openAsItRan(runId: string): Promise<boolean> {
    ui.view = "editor";
    const view = await load(runId);
    const asRan = snapshots.get(runId);
    if (!view || !asRan) return false;
    const tab = workflows.openSnapshot(runId, asRan);
    return (await show(tab.id, runId)) !== null;
  }

  async function loadRecent() {
    const result = await api.listRuns(null, 50);
    if (result.ok) {
      recent.value = result.value;
      recentError.value = null;
    } else recentError.value = result.error;
  }

  function hide(tabId: string) {
    shown[tabId] = null;
  }

  async function loadList(workflowId: string) {
    const result = await api.listRuns(workflowId);
    if (result.ok) lists.set(workflowId, result.value);
    else ui.apiError("Could not load the run history", result.error);
  }

  /** After a page reload: each tab shows its run again; a run still going is replayed and followed from its last event. */
  async function resume() {
    const remembered = readLocal(SHOWN_RUNS_KEY, ShownRunsSchema) ?? {};
    await Promise.all(Object.entries(remembered).map(([tabId, runId]) => (workflows.tab(tabId) ? show(tabId, runId) : null)));
  }

  const snapshotOf = (runId: string) => snapshots.get(runId);

  return {
    views,
    shown,
    lists,
    recent,
    recentError,
    socketStatus,
    reconnectNow,
    starting,
    rememberShown,
    viewOf,
    shownRun,
    start,
    rerunPast,
    fork,
    cancel,
    show,
    inspectRun,
    openAsItRan,
    hide,
    loadList,
    loadRecent,
    resume,
    lastInputs,
    offerInputs,
    snapshotOf,
    jumpToNode,
  };
});
