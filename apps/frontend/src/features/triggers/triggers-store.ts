import { defineStore } from "pinia";
import { ref } from "vue";
import type { ApiError } from "../../shared/api/errors.ts";
import { triggersApi, type ShownSecret, type TriggerView } from "./triggers-api.ts";

/** A secret just made, shown once in the panel that asked for it (never stored in the browser). */
export interface FreshSecret extends ShownSecret {
  workflowId: string;
}

/** The Triggers view's state: every trigger, the switch and rotation, and the secrets shown once. */
export const useTriggersStore = defineStore("triggers", () => {
  const triggers = ref<TriggerView[] | null>(null);
  const error = ref<ApiError | null>(null);
  const busy = ref<string | null>(null);
  const fresh = ref<FreshSecret[]>([]);

  async function load() {
    const r = await triggersApi.list();
    if (r.ok) {
      triggers.value = r.value;
      error.value = null;
    } else error.value = r.error;
  }

  async function setActive(workflowId: string, active: boolean) {
    busy.value = workflowId;
    try {
      const r = await triggersApi.setActive(workflowId, active);
      if (!r.ok) {
        error.value = r.error;
        return;
      }
      error.value = null;
      fresh.value = [...fresh.value.filter((s) => s.workflowId !== workflowId), ...r.value.map((s) => ({ ...s, workflowId }))];
      await load();
    } finally {
      busy.value = null;
    }
  }

  async function rotate(workflowId: string, nodeId: string) {
    busy.value = workflowId;
    try {
      const r = await triggersApi.rotate(workflowId, nodeId);
      if (!r.ok) {
        error.value = r.error;
        return;
      }
      error.value = null;
      fresh.value = [...fresh.value.filter((s) => !(s.workflowId === workflowId && s.nodeId === nodeId)), { ...r.value, workflowId }];
      await load();
    } finally {
      busy.value = null;
    }
  }

  /** The user has copied it (or closed it): it is gone from the page. */
  function dismiss(workflowId: string, nodeId: string) {
    fresh.value = fresh.value.filter((s) => !(s.workflowId === workflowId && s.nodeId === nodeId));
  }

  return { triggers, error, busy, fresh, load, setActive, rotate, dismiss };
});
