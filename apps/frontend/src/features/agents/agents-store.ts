import { defineStore } from "pinia";
import { computed, ref, shallowRef } from "vue";
import { z } from "zod";
import type { AgentProfile } from "@weft/types";
import { agentConflict, agentsApi } from "./agents-api.ts";
import { agentErrorsOf, blankAgentDraft, draftFingerprint, draftOfAgent, noAgentErrors, profileOfDraft, type AgentDraft, type AgentErrors } from "./agent-draft.ts";
import { readLocal, writeLocal } from "../../shared/lib/local-store.ts";
import { useLeaveGuardStore } from "../../shared/ui/leave-guard.ts";
import { useUiStore } from "../../shared/ui/ui-store.ts";
import { useWorkflowsStore } from "../../shared/workflow/workflows-store.ts";

const SELECTED_KEY = "weft.agents.selected";
/** The deliberation workflow a new agent starts with, when the installation has it. */
const USUAL_DELIBERATION = "agent-deliberation";

/**
 * The Agents view's profiles: the list on the server, the one selected and its form's draft, and
 * saving it with the revision it was loaded at (a profile saved meanwhile is a conflict the user
 * resolves, never overwritten silently).
 */
export const useAgentsStore = defineStore("agents", () => {
  const ui = useUiStore();

  const agents = ref<AgentProfile[]>([]);
  const selectedId = ref<string | null>(readLocal(SELECTED_KEY, z.string()) ?? null);
  /** The form: the selected profile's, or a new one's (then `selectedId` is null). */
  const draft = ref<AgentDraft | null>(null);
  const baseline = ref("");
  const errors = shallowRef<AgentErrors>(noAgentErrors());
  const conflict = shallowRef<{ currentRevision: number; current: AgentProfile } | null>(null);
  const saving = ref(false);

  const selected = computed(() => agents.value.find((a) => a.id === selectedId.value) ?? null);
  const isNew = computed(() => !!draft.value && draft.value.revision === 0);
  const dirty = computed(() => !!draft.value && draftFingerprint(draft.value) !== baseline.value);
  // The page asks before closing over unsaved edits (the shell does not load this store to ask it).
  useLeaveGuardStore().guard(() => dirty.value);

  function show(agent: AgentProfile | null, next: AgentDraft | null) {
    selectedId.value = agent?.id ?? null;
    writeLocal(SELECTED_KEY, agent?.id);
    draft.value = next;
    baseline.value = next ? draftFingerprint(next) : "";
    errors.value = noAgentErrors();
    conflict.value = null;
  }

  async function loadList(): Promise<void> {
    const r = await agentsApi.list();
    if (!r.ok) return void ui.apiError("Could not load the agent profiles", r.error);
    agents.value = r.value;
    if (draft.value && isNew.value) return;
    const keep = r.value.find((a) => a.id === selectedId.value) ?? r.value[0] ?? null;
    // The form keeps unsaved edits of the profile it shows; otherwise it shows what is stored now.
    if (draft.value && keep?.id === selectedId.value && dirty.value) return;
    show(keep, keep ? draftOfAgent(keep) : null);
  }

  /** Asks before unsaved edits are dropped; true when it is fine to go on. */
  async function mayLeave(): Promise<boolean> {
    if (!dirty.value || !draft.value) return true;
    const name = draft.value.name.trim() || "the new agent";
    const choice = await ui.confirm({
      title: "Unsaved changes",
      message: `The changes to “${name}” are not saved.`,
      choices: [
        { id: "discard", label: "Discard them", kind: "danger" },
        { id: "save", label: "Save", kind: "primary" },
      ],
    });
    if (choice === "save") return save();
    return choice === "discard";
  }

  async function select(id: string): Promise<void> {
    if (id === selectedId.value && !isNew.value) return;
    if (!(await mayLeave())) return;
    const agent = agents.value.find((a) => a.id === id) ?? null;
    show(agent, agent ? draftOfAgent(agent) : null);
  }

  async function startNew(): Promise<void> {
    if (!(await mayLeave())) return;
    const workflows = useWorkflowsStore().summaries;
    const deliberation = workflows.find((w) => w.id === USUAL_DELIBERATION)?.id ?? "";
    show(null, blankAgentDraft(deliberation));
  }

  /** Saves the draft: creates a new profile, or updates the stored one from the revision it was loaded at (`overwrite`: from the conflicting one). */
  async function save(options: { overwrite?: boolean } = {}): Promise<boolean> {
    const d = draft.value;
    if (!d || saving.value) return false;
    const built = profileOfDraft(d);
    if (!built.ok) {
      errors.value = built.errors;
      return false;
    }
    const creating = d.revision === 0;
    const baseRevision = options.overwrite && conflict.value ? conflict.value.currentRevision : d.revision;
    saving.value = true;
    const r = creating ? await agentsApi.create(built.profile) : await agentsApi.update(built.profile, baseRevision);
    saving.value = false;
    if (!r.ok) {
      const stale = agentConflict(r.error);
      // Shown in the form, at the fields the refusal names (or above them).
      if (stale) {
        conflict.value = stale;
        errors.value = noAgentErrors();
      } else errors.value = agentErrorsOf(r.error);
      return false;
    }
    const saved = r.value;
    agents.value = creating ? [...agents.value, saved] : agents.value.map((a) => (a.id === saved.id ? saved : a));
    show(saved, draftOfAgent(saved));
    ui.toast("success", `Saved “${saved.name}”.`);
    return true;
  }

  /** The stored profile changed under the form (a version restored): the form shows it, unsaved edits dropped. */
  async function reloadStored(id: string): Promise<void> {
    const r = await agentsApi.list();
    if (!r.ok) return void ui.apiError("Could not load the agent profiles", r.error);
    agents.value = r.value;
    const agent = r.value.find((a) => a.id === id) ?? null;
    show(agent, agent ? draftOfAgent(agent) : null);
  }

  /** After a conflict: the form shows the stored profile, the user's edits are dropped. */
  function takeTheirs() {
    const c = conflict.value;
    if (!c) return;
    agents.value = agents.value.map((a) => (a.id === c.current.id ? c.current : a));
    show(c.current, draftOfAgent(c.current));
  }

  /** Back to what is stored (or an empty form for a new agent). */
  function revert() {
    if (!draft.value) return;
    if (isNew.value) show(null, blankAgentDraft(draft.value.deliberationWorkflowId));
    else if (selected.value) show(selected.value, draftOfAgent(selected.value));
  }

  async function remove(id: string): Promise<void> {
    const agent = agents.value.find((a) => a.id === id);
    const choice = await ui.confirm({
      title: `Delete “${agent?.name ?? id}”?`,
      message: "The agent profile is deleted on the server. Its conversations and the runs it made stay; a scene that uses it can no longer start it.",
      choices: [{ id: "delete", label: "Delete", kind: "danger" }],
    });
    if (choice !== "delete") return;
    const r = await agentsApi.remove(id);
    if (!r.ok) return void ui.apiError(`Could not delete “${agent?.name ?? id}”`, r.error);
    agents.value = agents.value.filter((a) => a.id !== id);
    if (selectedId.value === id) {
      const next = agents.value[0] ?? null;
      show(next, next ? draftOfAgent(next) : null);
    }
  }

  /** Clears the problems shown once the user edits what they were about. */
  function clearErrors() {
    errors.value = noAgentErrors();
  }

  return { agents, selectedId, selected, draft, errors, conflict, saving, isNew, dirty, loadList, reloadStored, select, startNew, save, takeTheirs, revert, remove, mayLeave, clearErrors };
});
