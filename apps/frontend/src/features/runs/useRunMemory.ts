import { watch } from "vue";
import { useRunsStore } from "./runs-store.ts";

/**
 * For as long as the calling scope lives, which run each tab shows is written for the next visit
 * whenever it changes, so a reload follows a live run again and shows a finished one again.
 * The watch stops with the scope.
 */
export function useRunMemory(): void {
  const runs = useRunsStore();
  watch(
    () => runs.shown,
    () => runs.rememberShown(),
    { deep: true },
  );
}
