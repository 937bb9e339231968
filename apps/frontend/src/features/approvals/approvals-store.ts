import { defineStore } from "pinia";
import { ref } from "vue";
import type { ApprovalDecision, ApprovalView } from "@weft/types";
import type { ApiError } from "../../shared/api/errors.ts";
import { approvalsApi } from "./approvals-api.ts";

/** The Approvals inbox's state: the pending approvals the user may decide, the comment typed per approval, and deciding. */
export const useApprovalsStore = defineStore("approvals", () => {
  const approvals = ref<ApprovalView[] | null>(null);
  const error = ref<ApiError | null>(null);
  const busy = ref<string | null>(null);
  const comments = ref<Record<string, string>>({});
  /** Counts requests to open the header's inbox from elsewhere (an agent's "Waiting for approval"); the inbox watches it. */
  const openRequests = ref(0);
  const requestOpen = () => void openRequests.value++;

  async function load() {
    const r = await approvalsApi.list();
    if (r.ok) {
      approvals.value = r.value;
      error.value = null;
    } else error.value = r.error;
  }

  /** Decides one; it leaves the inbox (the run resumes on the server). A refusal (decided meanwhile: 409) is shown. */
  async function decide(id: string, decision: ApprovalDecision) {
    busy.value = id;
    try {
      const r = await approvalsApi.decide(id, decision, comments.value[id] ?? "");
      error.value = r.ok ? null : r.error;
      delete comments.value[id];
      await load();
    } finally {
      busy.value = null;
    }
  }

  return { approvals, error, busy, comments, openRequests, requestOpen, load, decide };
});
