import { defineStore } from "pinia";
import { computed, reactive, ref, shallowRef, watch } from "vue";
import { z } from "zod";
import type { PermissionAnswer, RunEvent, Scene, SceneAgentView, SceneInput, SceneLogEntry, SceneStateView, SceneStepView, SceneTimeline } from "@weft/types";
import { sceneApi, type SceneForkChange } from "./scenes-api.ts";
import { forkPointOf } from "./scene-fork.ts";
import { useLiveSocket } from "../../shared/live/useLiveSocket.ts";
import { coalescedRefresh } from "../../shared/lib/coalesced-refresh.ts";
import { readLocal, writeLocal } from "../../shared/lib/local-store.ts";
import { applySceneEvent, forgetCoveredStatuses, forgetRecordedSteps, newSceneLive } from "./scene-live.ts";
import { applyTimeline as foldTimeline, emptyTimeline, type HeldTimeline } from "./scene-timeline-sync.ts";
import { useSceneReplayStore } from "./scene-replay-store.ts";
import { useUiStore } from "../../shared/ui/ui-store.ts";
import { describeApiError } from "../../shared/api/errors.ts";

const SELECTED_KEY = "weft.scenes.selected";
/** The last event seen of each scene's stream: after a reload the view resumes from there. */
const SEEN_KEY = "weft.scenes.seen";
const SeenSchema = z.record(z.string(), z.number().int());
/** At most this many events are replayed after a reload; from further back the state read is enough. */
const MAX_REPLAY = 5000;
/** Reads of the state follow each other at least this far apart while events keep coming. */
const REFRESH_GAP_MS = 120;

export type SceneControl = "start" | "pause" | "resume" | "stop";
export type SceneSideTab = "world" | "trace" | "replay" | "versions" | "evals";

/**
 * The Scenes view: the scene list, the selected scene's state, timeline and step traces, kept live
 * by its event stream on `/ws` (each event folds into the view at once, and a read of the state
 * and the new timeline entries follows), and the user's part: controls, messages, answers.
 */
export const useScenesStore = defineStore("scenes", () => {
  const ui = useUiStore();
  const { socket, status: socketStatus, reconnectNow } = useLiveSocket((error) => ui.apiError("Live updates", error));

  const scenes = ref<Scene[]>([]);
  const selectedId = ref<string | null>(readLocal(SELECTED_KEY, z.string()) ?? null);
  const state = shallowRef<SceneStateView | null>(null);
  const entries = shallowRef<SceneLogEntry[]>([]);
  const steps = shallowRef<SceneStepView[]>([]);
  const live = reactive(newSceneLive());
  /** The control request under way. */
  const busy = ref<SceneControl | null>(null);
  const sideTab = ref<SceneSideTab>("world");
  /** The agent whose trace the side panel shows, and the step to bring into view. */
  const focus = ref<{ instanceId: string; step?: number } | null>(null);
  /** A session-log entry a link points at (#/scenes/:id?seq=N, e.g. a scene suite's first broken step): the timeline shows it. */
  const timelineFocus = ref<{ sceneId: string; seq: number } | null>(null);

  /** The timeline the view holds and the server's cursor after it: each read asks only for what is new. */
  let held: HeldTimeline = emptyTimeline();
  /** State reads are numbered as they are asked for: an answer older than the one shown is dropped. */
  let tickets = 0;
  let shownTicket = 0;
  /** Bumped when another scene is selected: answers still coming for the previous one are dropped. */
  let generation = 0;
  let unsubscribe: (() => void) | null = null;
  let lastError: string | null = null;

  const selected = computed(() => scenes.value.find((s) => s.id === selectedId.value) ?? null);
  /** The agents as the last state read shows them, with the statuses events reported since. */
  const agents = computed((): SceneAgentView[] =>
    (state.value?.agents ?? []).map((a) => {
      const recent = live.statuses[a.instanceId];
      return recent && recent.seq > (state.value?.streamSeq ?? -1) ? { ...a, status: recent.status } : a;
    }),
  );

  async function loadList(): Promise<void> {
    const r = await sceneApi.listScenes();
    if (!r.ok) return void ui.apiError("Could not load the scenes", r.error);
    scenes.value = r.value;
    // Scenes deleted meanwhile (here or elsewhere): nothing to resume from any more.
    const ids = new Set(r.value.map((s) => s.id));
    forgetSeen((id) => ids.has(id));
    const keep = r.value.some((s) => s.id === selectedId.value);
    if (!keep) await select(r.value[0]?.id ?? null);
    else if (!state.value) await select(selectedId.value);
  }

  function resetTimeline() {
    held = emptyTimeline();
    entries.value = [];
    steps.value = [];
    Object.assign(live, newSceneLive());
  }

  function resetView() {
    state.value = null;
    resetTimeline();
  }

  async function select(id: string | null): Promise<void> {
    generation++;
    const gen = generation;
    unsubscribe?.();
    unsubscribe = null;
    selectedId.value = id;
    if (timelineFocus.value?.sceneId !== id) timelineFocus.value = null;
    writeLocal(SELECTED_KEY, id ?? undefined);
    resetView();
    focus.value = null;
    if (!id) return;
    const ticket = ++tickets;
    const read = await sceneApi.state(id);
    if (gen !== generation) return;
    if (!read.ok) return void ui.apiError(`Could not load scene "${id}"`, read.error);
    applyState(read.value, ticket);
    const timeline = await sceneApi.timeline(id, null);
    if (gen !== generation) return;
    if (!timeline.ok) ui.apiError(`Could not load the timeline of "${id}"`, timeline.error);
    else if (!applyTimeline(timeline.value, null)) requestRefresh();
    const seen = readLocal(SEEN_KEY, SeenSchema)?.[id];
    const head = read.value.streamSeq;
    const from = seen !== undefined && seen <= head && head - seen <= MAX_REPLAY ? seen : head;
    unsubscribe = socket.subscribe(id, from, (event) => onEvent(id, event));
  }

  function onEvent(sceneId: string, event: RunEvent) {
    if (sceneId !== selectedId.value) return;
    noteSeen(sceneId, event.seq);
    if (applySceneEvent(live, event) && event.seq > (state.value?.streamSeq ?? -1)) requestRefresh();
  }

  /** The last event seen of each scene's stream in this page; `useSceneMemory` writes it for the next visit. */
  const seen = reactive<Record<string, number>>({});
  function noteSeen(sceneId: string, seq: number) {
    seen[sceneId] = seq;
  }
  /** Writes the positions seen in this page over the stored ones. */
  function rememberSeen() {
    writeLocal(SEEN_KEY, { ...(readLocal(SEEN_KEY, SeenSchema) ?? {}), ...seen });
  }

  /** Drops the remembered stream positions of scenes that `keep` says are gone. */
  function forgetSeen(keep: (sceneId: string) => boolean) {
    for (const id of Object.keys(seen)) if (!keep(id)) delete seen[id];
    const stored = readLocal(SEEN_KEY, SeenSchema) ?? {};
    const kept = Object.fromEntries(Object.entries(stored).filter(([id]) => keep(id)));
    if (Object.keys(kept).length !== Object.keys(stored).length) writeLocal(SEEN_KEY, kept);
  }

  /** Shows a state read unless a later one is shown already; a new session (started again) starts an empty timeline. */
  function applyState(view: SceneStateView, ticket: number): boolean {
    if (view.sceneId !== selectedId.value || ticket < shownTicket) return false;
    shownTicket = ticket;
    if (state.value !== null && view.sessionId !== state.value.sessionId) {
      resetTimeline();
      requestRefresh();
    }
    state.value = view;
    forgetCoveredStatuses(live, view.streamSeq);
    return true;
  }

  /**
   * Takes a timeline answer read after `since`, when it still fits: the view's cursor has not moved
   * meanwhile and the answer is of the session the state shows. Returns false when it did not fit
   * (then it is read again).
   */
  function applyTimeline(timeline: SceneTimeline, since: string | null): boolean {
    if (since !== held.cursor || timeline.sessionId !== state.value?.sessionId) return false;
    held = foldTimeline(held, timeline);
    if (entries.value !== held.entries) entries.value = held.entries;
    if (steps.value !== held.steps) steps.value = held.steps;
    forgetRecordedSteps(live, timeline.steps);
    return true;
  }

  /** Reads the state and the new timeline entries again, as long as events keep saying something changed. */
  const refresh = coalescedRefresh(async () => {
    const id = selectedId.value;
    const gen = generation;
    if (!id) return false;
    const since = held.cursor;
    const ticket = ++tickets;
    const [read, timeline] = await Promise.all([sceneApi.state(id), sceneApi.timeline(id, since)]);
    if (gen !== generation) return false;
    const failed = !read.ok ? read.error : !timeline.ok ? timeline.error : null;
    if (failed) {
      // One toast per distinct failure, not one per event while the server is away.
      if (lastError !== failed.message) ui.apiError(`Could not update scene "${id}"`, failed);
      lastError = failed.message;
    } else lastError = null;
    // A timeline of another session than the state shows (one changed between the reads) is read again.
    const stateFits = !read.ok || applyState(read.value, ticket);
    const timelineFits = !timeline.ok || applyTimeline(timeline.value, since);
    return !stateFits || !timelineFits;
  }, REFRESH_GAP_MS);
  const requestRefresh = () => refresh.request();

  // After a reconnect the socket replays what was missed; reading the state once more costs little.
  watch(socketStatus, (s) => {
    if (s === "open" && state.value) requestRefresh();
  });

  async function control(action: SceneControl): Promise<void> {
    const id = selectedId.value;
    if (!id || busy.value) return;
    busy.value = action;
    const ticket = ++tickets;
    const r = await sceneApi.control(id, action);
    busy.value = null;
    if (!r.ok) return void ui.apiError(`Could not ${action} the scene`, r.error);
    applyState(r.value, ticket);
  }

  /** `to`: an agent instance id or "all". */
  async function send(to: string, text: string): Promise<boolean> {
    const id = selectedId.value;
    if (!id) return false;
    const r = await sceneApi.sendMessage(id, to, text);
    if (!r.ok) ui.apiError("Could not send the message", r.error);
    // Shown at once, even while live updates reconnect.
    else requestRefresh();
    return r.ok;
  }

  async function answerQuestion(instanceId: string, text: string): Promise<boolean> {
    const id = selectedId.value;
    if (!id) return false;
    const r = await sceneApi.answerQuestion(id, instanceId, text);
    if (!r.ok) ui.apiError(`Could not answer ${instanceId}`, r.error);
    else requestRefresh();
    return r.ok;
  }

  async function answerPermission(instanceId: string, requestId: string, answer: PermissionAnswer): Promise<boolean> {
    const id = selectedId.value;
    if (!id) return false;
    const r = await sceneApi.answerPermission(id, instanceId, requestId, answer);
    if (!r.ok) ui.apiError(`Could not answer the permission request of ${instanceId}`, r.error);
    else requestRefresh();
    return r.ok;
  }

  async function create(scene: SceneInput): Promise<boolean> {
    const r = await sceneApi.createScene(scene);
    if (!r.ok) {
      ui.apiError(`Could not create scene "${scene.name}"`, r.error);
      return false;
    }
    await loadList();
    await select(r.value.id);
    return true;
  }

  async function remove(id: string): Promise<void> {
    const r = await sceneApi.deleteScene(id);
    if (!r.ok) return void ui.apiError(`Could not delete scene "${id}"`, r.error);
    forgetSeen((sceneId) => sceneId !== id);
    useSceneReplayStore().forget(id);
    if (selectedId.value === id) await select(null);
    await loadList();
  }

  /** Opens a scene at one entry of its timeline (a link's target); the list is read again, the scene may be new. */
  async function openAt(sceneId: string, seq: number | null): Promise<void> {
    timelineFocus.value = seq === null ? null : { sceneId, seq };
    selectedId.value = sceneId;
    const r = await sceneApi.listScenes();
    if (r.ok) scenes.value = r.value;
    await select(sceneId);
  }

  /**
   * Forks the session at an agent's `nth` recorded step with `change` applied (its live steps on `agentVersion` of the
   * agent's profile when given), then opens the fork (a new scene going on from there). The refusal's message when it
   * was refused, else null.
   */
  async function forkStep(instanceId: string, nth: number, change: SceneForkChange, agentVersion?: number): Promise<string | null> {
    const id = selectedId.value;
    const point = forkPointOf(instanceId, nth, entries.value);
    if (!id || !point) return "This step is not in the session's log yet; wait until the timeline shows it.";
    const r = await sceneApi.fork(id, { instanceId, ...point }, change, agentVersion);
    if (!r.ok) return describeApiError(r.error);
    await openAt(r.value, null);
    return null;
  }

  function showTrace(instanceId: string, step?: number) {
    focus.value = { instanceId, ...(step !== undefined ? { step } : {}) };
    sideTab.value = "trace";
  }

  return {
    scenes,
    selectedId,
    selected,
    state,
    agents,
    entries,
    steps,
    live,
    busy,
    sideTab,
    focus,
    timelineFocus,
    socketStatus,
    reconnectNow,
    seen,
    noteSeen,
    rememberSeen,
    loadList,
    select,
    control,
    send,
    answerQuestion,
    answerPermission,
    create,
    remove,
    showTrace,
    openAt,
    forkStep,
  };
});
