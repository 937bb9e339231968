import { onScopeDispose, watch } from "vue";
import { useScenesStore } from "./scenes-store.ts";

/** How long stream positions gather before they are written: an older position only replays a few events more. */
const REMEMBER_AFTER_MS = 300;

/**
 * For as long as the calling scope (the Scenes view) lives, the last event seen of each scene's
 * stream is written for the next visit, in batches; a batch still waiting is written when the scope ends.
 */
export function useSceneMemory(): void {
  const scenes = useScenesStore();

  let rememberTimer: ReturnType<typeof setTimeout> | undefined;
  const remember = () => {
    rememberTimer = undefined;
    scenes.rememberSeen();
  };
  watch(
    () => scenes.seen,
    () => {
      rememberTimer ??= setTimeout(remember, REMEMBER_AFTER_MS);
    },
    { deep: true },
  );

  onScopeDispose(() => {
    if (rememberTimer === undefined) return;
    clearTimeout(rememberTimer);
    remember();
  });
}
