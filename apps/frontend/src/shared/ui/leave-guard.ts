import { defineStore } from "pinia";

/**
 * Unsaved work held by views loaded on first use (the Agents view's form): the shell asks before the page is left
 * without importing them, and a view never opened holds nothing.
 */
export const useLeaveGuardStore = defineStore("leave-guard", () => {
  const checks = new Set<() => boolean>();

  /** `unsaved` says whether leaving now would lose something (asked for the rest of the page's life, as stores live). */
  function guard(unsaved: () => boolean): void {
    checks.add(unsaved);
  }

  const anyUnsaved = (): boolean => [...checks].some((unsaved) => unsaved());

  return { guard, anyUnsaved };
});
