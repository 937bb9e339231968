import { defineStore } from "pinia";
import { markRaw, reactive, ref, shallowReactive, shallowRef } from "vue";
import { z } from "zod";
import type { RunEvent, Workflow } from "@weft/types";
import { api, validationIssuesOf } from "../api/client.ts";
import type { RunRecord } from "../api/schemas.ts";
import { readLocal, writeLocal } from "../lib/local-store.ts";
import { LiveSocket, type SocketStatus } from "../lib/live-socket.ts";
import { applyRunEvent, isRunActive, newRunView, runViewFromObservations, type RunView } from "../lib/run-state.ts";
import { useUiStore } from "./ui.ts";
import { useWorkflowsStore } from "./workflows.ts";

const ACTIVE_RUNS_KEY = "weft.activeRuns";
const INPUTS_KEY = (workflowId: string) => `weft.runInputs.${workflowId}`;
const ActiveRunsSchema = z.record(z.string(), z.string());

/** Runs: starting, cancelling, the live view of each run over the WebSocket, and run history per workflow. */
export const useRunsStore = defineStore("runs", () => {
  const ui = useUiStore();
  const workflows = useWorkflowsStore();

  /** Every run loaded in this page, by run id (reactive per node, so only changed nodes re-render). */
  const views = shallowReactive(new Map<string, RunView>());
  /** The run each tab's canvas shows (by tab id). */
  const shown = reactive<Record<string, string | null>>({});
  /** Run history by workflow id, newest first. */
  const lists = shallowReactive(new Map<string, RunRecord[]>());
  /** The workflow as each run of this session ran it. */
  const snapshots = new Map<string, Workflow>();
  const socketStatus = ref<SocketStatus>("closed");
  const starting = ref(false);
  const unsubscribers = new Map<string, () => void>();

  const socket = new LiveSocket({
    url: `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`,
    fetchEvents: (runId, after) => api.runEvents(runId, after),
    onStatus: (s) => (socketStatus.value = s),
    onError: (error) => ui.apiError("Live updates", error),
  });

  const viewOf = (runId: string | null | undefined) => (runId ? views.get(runId) : undefined);
  const shownRun = (tabId: string | null | undefined) => (tabId ? viewOf(shown[tabId]) : undefined);

  function listen(view: RunView) {
    if (unsubscribers.has(view.runId) || !isRunActive(view.status)) return;
    const stop = socket.subscribe(view.runId, view.lastSeq, (event) => onEvent(view, event));
    unsubscribers.set(view.runId, stop);
    rememberActive();
  }

  function onEvent(view: RunView, event: RunEvent) {
    applyRunEvent(view, event);
    if (isRunActive(view.status)) return;
    unsubscribers.get(view.runId)?.();
    unsubscribers.delete(view.runId);
    rememberActive();
    void loadList(view.workflowId);
    if (view.status === "failed") ui.toast("error", `Run failed: ${view.error?.message ?? "see the failed node"}`, view.error?.code);
  }

  function rememberActive() {
    const active: Record<string, string> = {};
    for (const [tabId, runId] of Object.entries(shown)) {
      const view = viewOf(runId);
      if (view && isRunActive(view.status)) active[tabId] = view.runId;
    }
    writeLocal(ACTIVE_RUNS_KEY, active);
  }

  const lastInputs = (workflowId: string): Record<string, unknown> => readLocal(INPUTS_KEY(workflowId), z.record(z.string(), z.unknown())) ?? {};

  /** Runs the tab's current draft (unsaved edits included). A workflow never saved is created first. */
  async function start(tabId: string, options: { inputs?: Record<string, unknown>; rerunFrom?: string } = {}): Promise<boolean> {
    const tab = workflows.tab(tabId);
    if (!tab || tab.readonly || starting.value) return false;
    if (tab.saved === null && !(await workflows.save(tabId))) return false;
    const doc = tab.doc;
    starting.value = true;
    const result = await api.startRun(doc.id, { inputs: options.inputs ?? {}, rerunFrom: options.rerunFrom, workflow: doc });
    starting.value = false;
    if (!result.ok) {
      // A graph the server refuses: its problems go onto the nodes they concern.
      tab.issues = validationIssuesOf(result.error);
      ui.apiError(options.rerunFrom ? `Could not re-run from "${options.rerunFrom}"` : `Could not start "${doc.name}"`, result.error);
      return false;
    }
    tab.issues = [];
    if (options.inputs) writeLocal(INPUTS_KEY(doc.id), options.inputs);
    const view = reactive(newRunView(result.value.runId, doc.id, doc.nodes.map((n) => n.id))) as RunView;
    view.workflowRevision = tab.saved?.revision;
    snapshots.set(view.runId, markRaw(doc));
    views.set(view.runId, view);
    shown[tabId] = view.runId;
    listen(view);
    void loadList(doc.id);
    return true;
  }

  async function cancel(runId: string) {
    const result = await api.cancelRun(runId);
    if (!result.ok) ui.apiError("Could not cancel the run", result.error);
  }

  /** Loads any run (live or past) and shows it on a tab's canvas. */
  async function show(tabId: string, runId: string): Promise<RunView | null> {
    let view = views.get(runId);
    if (!view) {
      const result = await api.getRun(runId);
      if (!result.ok) {
        ui.apiError(`Could not load run ${runId}`, result.error);
        return null;
      }
      const { run, observations, workflow } = result.value;
      if (workflow) snapshots.set(run.id, markRaw(workflow));
      if (isRunActive(run.status)) {
        // Still going: replay its events so far, then follow it live from the last one.
        view = reactive(newRunView(run.id, run.workflowId, [], run.status)) as RunView;
        view.workflowRevision = run.workflowRevision;
        const events = await api.runEvents(run.id, -1);
        if (events.ok) for (const e of events.value) applyRunEvent(view, e);
        else ui.apiError(`Could not replay run ${runId}`, events.error);
      } else {
        view = reactive(runViewFromObservations({ ...run, startedAt: run.startedAt ?? run.createdAt }, observations)) as RunView;
      }
      views.set(runId, view);
    }
    shown[tabId] = runId;
    listen(view);
    return view;
  }

  function hide(tabId: string) {
    shown[tabId] = null;
    rememberActive();
  }

  async function loadList(workflowId: string) {
    const result = await api.listRuns(workflowId);
    if (result.ok) lists.set(workflowId, result.value);
    else ui.apiError("Could not load the run history", result.error);
  }

  /** After a page reload: follow again the runs that were live in each tab, from the first event. */
  async function resume() {
    const active = readLocal(ACTIVE_RUNS_KEY, ActiveRunsSchema) ?? {};
    await Promise.all(Object.entries(active).map(([tabId, runId]) => (workflows.tab(tabId) ? show(tabId, runId) : null)));
  }

  const snapshotOf = (runId: string) => snapshots.get(runId);

  return { views, shown, lists, socketStatus, starting, socket: shallowRef(socket), viewOf, shownRun, start, cancel, show, hide, loadList, resume, lastInputs, snapshotOf };
});
