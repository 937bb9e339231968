import { defineStore } from "pinia";
import { onSignedOut } from "../../shared/api/session.ts";

/** Whether the editor must ask for the access token before anything else works. */
export const useSessionStore = defineStore("session", {
  state: () => ({ signInRequired: false }),
  actions: {
    /** Starts listening for 401s from every API client; App calls it once. */
    watchSignOut(): () => void {
      return onSignedOut(() => {
        this.signInRequired = true;
      });
    },
  },
});
