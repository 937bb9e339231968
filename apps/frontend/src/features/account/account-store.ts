import { defineStore } from "pinia";
import { AccountsApi, type Principal, type Role } from "./accounts-api.ts";
import type { ApiError } from "../../shared/api/errors.ts";
import { onRefused } from "../../shared/api/session.ts";

const RANK: Record<Role, number> = { viewer: 0, editor: 1, owner: 2 };

/** What the editor tells a viewer who reaches for Save or Run. */
export const VIEWER_NOTE = "You are a viewer: you can read workflows and watch runs. Ask an owner for the editor role to save or run.";

/** Why a viewer's message box is closed: "You are a viewer: ask an owner for the editor role to talk to agents." */
export const viewerCannot = (doing: string) => `You are a viewer: ask an owner for the editor role to ${doing}.`;

/** Who is signed in and what their role lets them do; the server checks every request itself, this only shapes the editor. */
export const useAccountStore = defineStore("account", {
  state: () => ({ me: null as Principal | null, error: null as ApiError | null }),
  getters: {
    /** Until `load` answers, nothing is assumed: the editor shows no ability it may not have. */
    role: (state): Role | null => state.me?.role ?? null,
    /** Known to be a viewer: what would be refused is shown read-only, with the reason. */
    isViewer: (state): boolean => state.me?.role === "viewer",
  },
  actions: {
    /** Whether the signed-in user's role is at least `minimum`. */
    can(minimum: Role): boolean {
      return this.me !== null && RANK[this.me.role] >= RANK[minimum];
    },
    async load(api = new AccountsApi()): Promise<void> {
      const result = await api.me();
      if (result.ok) {
        this.me = result.value.principal;
        this.error = null;
      } else {
        this.error = result.error;
      }
    },
    /**
     * Keeps the role current without a reload: an owner may change it at any time. It is read again when the
     * window comes back into focus or view, and after any refusal (403). App calls it once; it returns the undo.
     */
    followRole(api = new AccountsApi()): () => void {
      let reading: Promise<void> | null = null;
      const reread = () => {
        reading ??= this.load(api).finally(() => (reading = null));
      };
      const onVisible = () => {
        if (document.visibilityState === "visible") reread();
      };
      const stopRefused = onRefused(reread);
      window.addEventListener("focus", reread);
      document.addEventListener("visibilitychange", onVisible);
      return () => {
        stopRefused();
        window.removeEventListener("focus", reread);
        document.removeEventListener("visibilitychange", onVisible);
      };
    },
    /** Ends the session on the server and starts the editor again, at the login page. */
    async signOut(api = new AccountsApi()): Promise<ApiError | null> {
      const result = await api.signOut();
      if (!result.ok) return result.error;
      this.me = null;
      window.location.reload();
      return null;
    },
  },
});
