import { watch } from "vue";
import { writeLocal } from "../lib/local-store.ts";
import { THEME_KEY, useUiStore } from "./ui-store.ts";

/**
 * For as long as the calling scope lives, the page wears the store's theme (`data-theme` on the
 * root element) and the choice is written for the next visit. The watch stops with the scope.
 */
export function useThemeMemory(): void {
  const ui = useUiStore();
  watch(
    () => ui.theme,
    (theme) => {
      document.documentElement.dataset.theme = theme;
      writeLocal(THEME_KEY, theme);
    },
    { immediate: true },
  );
}
