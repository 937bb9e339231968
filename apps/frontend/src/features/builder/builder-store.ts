import { defineStore } from "pinia";
import { computed, ref, shallowRef } from "vue";
import { builderApi } from "./builder-api.ts";
import type { ApiError } from "../../shared/api/errors.ts";
import {
  isOpenChangeSet,
  type BuilderChangeSet,
  type BuilderMode,
  type BuilderSession,
  type BuilderSessionState,
  type BuilderTarget,
  type BuilderTurn,
  type ChangePreview,
  type ObjectLocator,
  type PaneMessage,
  type RevisionBase,
  type RevisionWarning,
} from "@weft/types";
import { LlmProfilesApi, type LlmProfileView } from "../settings/index.ts";
import { sameTarget } from "./builder-target.ts";
import { useUiStore } from "../../shared/ui/ui-store.ts";
import { useWorkflowsStore } from "../../shared/workflow/workflows-store.ts";

/** How often the conversation is read again while the model works (its tool calls appear as they happen). */
const FOLLOW_MS = 700;

/** What the last apply did, for the banner after it. */
export interface AppliedInfo {
  changeSetId: string;
  summary: string;
  newRevision: RevisionBase;
  warnings: RevisionWarning[];
}

/** The Builder AI workbench: the user's LLM profile, the open session, its conversation, staged change, preview and apply. */
export const useBuilderStore = defineStore("builder", () => {
  const ui = useUiStore();
  const workflows = useWorkflowsStore();

  const profiles = shallowRef<LlmProfileView[]>([]);
  /** The Builder's LLM profile; null: the default profile (the demo LLM on a new installation). */
  const profileId = ref<string | null>(null);
  const recent = shallowRef<BuilderSession[]>([]);

  const session = shallowRef<BuilderSession | null>(null);
  const messages = shallowRef<PaneMessage[]>([]);
  const changeSet = shallowRef<BuilderChangeSet | null>(null);
  const preview = shallowRef<ChangePreview | null>(null);
  const previewError = shallowRef<ApiError | null>(null);
  /** The message the model is working on (shown at once, before the server has it). */
  const sending = ref<string | null>(null);
  const sendingSince = ref<number | null>(null);
  /** How many conversation entries there were when it was sent (its own entry comes after). */
  const sendingFrom = ref(0);
  const lastTurn = shallowRef<BuilderTurn | null>(null);
  /** The action waiting for the server, so its button can say so and the others wait. */
  const pending = ref<"open" | "start" | "validate" | "discard" | "apply" | "cancel" | "scope" | "stop" | null>(null);
  /** Apply found stored objects newer than the change's base: shown, and applied only on a second confirmation. */
  const staleWarnings = shallowRef<RevisionWarning[] | null>(null);
  const applied = shallowRef<AppliedInfo | null>(null);

  /** The session being opened, already the one the address names. */
  const opening = ref<string | null>(null);
  const shownSessionId = computed(() => opening.value ?? session.value?.id ?? null);
  /** Bumped by each choice of session (open, start, enter, leave): an answer to an older choice is dropped. */
  let choice = 0;
  function choose(): number {
    opening.value = null;
    if (pending.value === "open" || pending.value === "start") pending.value = null;
    return ++choice;
  }

  const active = computed(() => session.value?.status === "active");
  /** The model is working on a message: ours, or one sent before a reload (the server says `busy`). */
  const working = computed(() => sending.value !== null || session.value?.busy === true);
  const canApply = computed(
    () =>
      active.value &&
      !working.value &&
      pending.value === null &&
      changeSet.value?.status === "validated" &&
      changeSet.value.validation?.valid === true &&
      preview.value?.changeSetId === changeSet.value.id,
  );

  async function loadSettings() {
    const [list, settings] = await Promise.all([new LlmProfilesApi().list(), builderApi.settings()]);
    if (list.ok) profiles.value = list.value;
    else ui.apiError("Could not list the LLM profiles", list.error);
    if (settings.ok) profileId.value = settings.value.llmProfileId;
  }

  async function chooseProfile(id: string | null) {
    const before = profileId.value;
    profileId.value = id;
    const result = await builderApi.setProfile(id);
    if (!result.ok) {
      profileId.value = before;
      ui.apiError("Could not change the Builder's LLM profile", result.error);
    }
  }

  async function loadRecent() {
    const result = await builderApi.sessions(undefined, 12);
    if (result.ok) recent.value = result.value;
  }

  function adopt(state: BuilderSessionState) {
    session.value = state.session;
    const previous = changeSet.value;
    changeSet.value = state.latestChangeSet;
    const next = state.latestChangeSet;
    if (!next || !isOpenChangeSet(next)) preview.value = null;
    else if (!previous || previous.id !== next.id || previous.updatedAt !== next.updatedAt || preview.value?.changeSetId !== next.id) void loadPreview();
  }

  async function loadPreview() {
    const s = session.value;
    const cs = changeSet.value;
    if (!s || !cs) return;
    const result = await builderApi.preview(s.id, cs.id);
    if (changeSet.value?.id !== cs.id) return;
    if (result.ok) {
      preview.value = result.value;
      previewError.value = null;
    } else previewError.value = result.error;
  }

  function reset() {
    session.value = null;
    messages.value = [];
    changeSet.value = null;
    preview.value = null;
    previewError.value = null;
    lastTurn.value = null;
    staleWarnings.value = null;
    applied.value = null;
  }

  async function openSession(id: string): Promise<boolean> {
    const mine = choose();
    opening.value = id;
    pending.value = "open";
    const result = await builderApi.session(id);
    if (mine !== choice) return false;
    opening.value = null;
    pending.value = null;
    if (!result.ok) {
      ui.apiError("Could not open the Builder AI session", result.error);
      return false;
    }
    reset();
    adopt(result.value);
    messages.value = result.value.messages;
    // A turn started before a reload may still be running on the server.
    if (result.value.session.busy) void follow(id, { untilIdle: true });
    return true;
  }

  async function start(target: BuilderTarget, mode: BuilderMode): Promise<boolean> {
    const mine = choose();
    pending.value = "start";
    const result = await builderApi.createSession(target, mode);
    if (mine !== choice) return false;
    pending.value = null;
    if (!result.ok) {
      ui.apiError("Could not start a Builder AI session", result.error);
      return false;
    }
    reset();
    adopt(result.value);
    void loadRecent();
    return true;
  }

  /** Entry from the editor and the picker: the active session on this target, else a new one. */
  async function enter(target: BuilderTarget, mode: BuilderMode = "optimize"): Promise<boolean> {
    ui.view = "builder";
    if (session.value && active.value && sameTarget(session.value.target, target)) return true;
    if (sending.value) {
      ui.toast("warning", "The Builder AI is still working on the current session: stop it or wait before switching.");
      return false;
    }
    const mine = choose();
    const list = await builderApi.sessions(target);
    if (mine !== choice) return false;
    const existing = list.ok ? list.value.find((s) => s.status === "active" && s.mode === mode && sameTarget(s.target, target)) : undefined;
    return existing ? openSession(existing.id) : start(target, mode);
  }

  /** Back to the target picker; the session stays as it is on the server. */
  function leave() {
    if (sending.value) return;
    choose();
    reset();
    void loadRecent();
  }

  /** Reads the conversation again and again while the turn runs (or, after a reload, until the server is idle). */
  async function follow(id: string, options: { untilIdle?: boolean } = {}) {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, FOLLOW_MS));
      const stillOurs = () => session.value?.id === id && (options.untilIdle ? true : sending.value !== null);
      if (!stillOurs()) return;
      const result = await builderApi.session(id);
      if (!stillOurs() || !result.ok) return;
      messages.value = result.value.messages;
      if (options.untilIdle) {
        adopt(result.value);
        if (!result.value.session.busy) return;
      }
    }
  }

  async function send(text: string): Promise<boolean> {
    const s = session.value;
    const content = text.trim();
    if (!s || !active.value || sending.value || !content) return false;
    sending.value = content;
    sendingSince.value = Date.now();
    sendingFrom.value = messages.value.length;
    lastTurn.value = null;
    staleWarnings.value = null;
    applied.value = null;
    void follow(s.id);
    const result = await builderApi.send(s.id, content);
    sending.value = null;
    sendingSince.value = null;
    if (session.value?.id !== s.id) return false;
    const detail = await builderApi.session(s.id);
    if (detail.ok) messages.value = detail.value.messages;
    if (!result.ok) {
      ui.apiError("The Builder AI could not take the message", result.error);
      return false;
    }
    lastTurn.value = result.value.turn;
    adopt(result.value);
    if (result.value.turn.status === "failed" && result.value.turn.error) {
      const e = result.value.turn.error;
      ui.toast("error", `The model could not answer: ${e.message}`, e.hint);
    }
    return true;
  }

  async function stop() {
    const s = session.value;
    if (!s || !working.value) return;
    pending.value = "stop";
    const result = await builderApi.interrupt(s.id);
    pending.value = null;
    if (!result.ok) ui.apiError("Could not stop the Builder AI", result.error);
  }

  async function validate() {
    const s = session.value;
    const cs = changeSet.value;
    if (!s || !cs) return;
    pending.value = "validate";
    const result = await builderApi.validate(s.id, cs.id);
    pending.value = null;
    if (!result.ok) return ui.apiError("Could not validate the change", result.error);
    changeSet.value = result.value;
    await loadPreview();
  }

  async function discard() {
    const s = session.value;
    const cs = changeSet.value;
    if (!s || !cs) return;
    pending.value = "discard";
    const result = await builderApi.discard(s.id, cs.id);
    pending.value = null;
    if (!result.ok) return ui.apiError("Could not discard the change", result.error);
    changeSet.value = result.value;
    preview.value = null;
    staleWarnings.value = null;
  }

  /** Lets the session change one more object (an "out of scope" error names it), then checks the change again. */
  async function allow(locator: ObjectLocator) {
    const s = session.value;
    if (!s) return;
    pending.value = "scope";
    const result = await builderApi.setScope(s.id, [...s.scope.extra, locator]);
    pending.value = null;
    if (!result.ok) return ui.apiError("Could not widen the session's scope", result.error);
    session.value = result.value.session;
    await validate();
  }

  async function apply(confirmStale = false) {
    const s = session.value;
    const p = preview.value;
    if (!s || !p || !canApply.value) return;
    pending.value = "apply";
    const result = await builderApi.apply(s.id, p.changeSetId, p.revisionBase, confirmStale);
    pending.value = null;
    if (!result.ok) {
      ui.apiError("Could not apply the change", result.error);
      await openSession(s.id);
      return;
    }
    const answer = result.value;
    if (!answer.applied) {
      staleWarnings.value = answer.warnings;
      adopt(answer);
      return;
    }
    staleWarnings.value = null;
    applied.value = { changeSetId: answer.changeSetId, summary: p.summary, newRevision: answer.newRevision, warnings: answer.warnings };
    adopt(answer);
    ui.toast("success", `Applied: ${p.summary}`);
    await showInEditor(answer.newRevision);
  }

  /** Open editor tabs of the changed workflows take the new revision (or keep unsaved edits, and say so). */
  async function showInEditor(revisions: RevisionBase) {
    for (const id of Object.keys(revisions.workflows)) {
      const outcome = await workflows.reloadStored(id);
      if (outcome === "kept-edits") ui.toast("warning", `"${id}" has unsaved edits in the editor; saving them will ask how to combine them with the applied change.`);
    }
  }

  /** Ends the session: the staged change is discarded, nothing stored changes. */
  async function cancelSession() {
    const s = session.value;
    if (!s) return;
    pending.value = "cancel";
    const result = await builderApi.cancel(s.id);
    pending.value = null;
    if (!result.ok) return ui.apiError("Could not cancel the session", result.error);
    adopt(result.value);
    staleWarnings.value = null;
    void loadRecent();
  }

  /** What the address asks for (useHashRoute): that session, opened unless it is already there, or the picker (null). */
  function showSession(id: string | null) {
    if (id === null) {
      if (session.value || opening.value) leave();
    } else if (id !== shownSessionId.value) void openSession(id);
  }

  return {
    profiles,
    profileId,
    recent,
    session,
    messages,
    changeSet,
    preview,
    previewError,
    sending,
    sendingSince,
    sendingFrom,
    lastTurn,
    pending,
    staleWarnings,
    applied,
    active,
    working,
    canApply,
    loadSettings,
    chooseProfile,
    loadRecent,
    openSession,
    start,
    enter,
    leave,
    send,
    stop,
    validate,
    discard,
    allow,
    apply,
    cancelSession,
    shownSessionId,
    showSession,
    loadPreview,
  };
});
