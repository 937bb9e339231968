import { defineStore } from "pinia";
import { shallowRef } from "vue";
import type { Clip } from "./clipboard.ts";

/**
 * The clip of the last Copy in this page, shared by every `useEditorActions()` caller: pasting works
 * between tabs even where the system clipboard is closed. A store (not a module variable) so a test,
 * with a fresh pinia, starts with nothing copied.
 */
export const useClipStore = defineStore("clip", () => {
  const clip = shallowRef<Clip | null>(null);

  function keep(next: Clip) {
    clip.value = next;
  }

  function clear() {
    clip.value = null;
  }

  return { clip, keep, clear };
});
