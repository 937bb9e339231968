import { computed, ref, watch } from "vue";
import { z } from "zod";
import { readLocal, writeLocal } from "../../../shared/lib/local-store.ts";

/** The minimap's drawing, in CSS pixels. */
export const MINIMAP_WIDTH = 200;
export const MINIMAP_HEIGHT = 130;
/** Below this window width the minimap starts folded to its toggle: open, it would take a large part of the canvas. */
export const MINIMAP_MIN_WINDOW = 1200;
/** What it covers in the canvas's corner when its element is not there to be measured: the panel's 15 px margin, the toggle above the drawing. */
const PANEL_MARGIN = 15;
const TOGGLE = { width: 96, height: 28 };

/** Each size of window remembers its own choice: opening it on a laptop does not open it on the next small screen. */
const KEYS = { wide: "weft.minimapOpen", narrow: "weft.minimapOpenNarrow" } as const;

const query = globalThis.matchMedia?.(`(min-width: ${MINIMAP_MIN_WINDOW}px)`);
const wide = ref(query?.matches ?? true);
query?.addEventListener("change", (event) => (wide.value = event.matches));
const choice = {
  wide: ref(readLocal(KEYS.wide, z.boolean()) ?? true),
  narrow: ref(readLocal(KEYS.narrow, z.boolean()) ?? false),
};
watch(choice.wide, (value) => writeLocal(KEYS.wide, value));
watch(choice.narrow, (value) => writeLocal(KEYS.narrow, value));

/** Whether the minimap is open, shared by every canvas (and the fit that leaves room for it). */
export const minimapOpen = computed({
  get: () => (wide.value ? choice.wide.value : choice.narrow.value),
  set: (value: boolean) => {
    (wide.value ? choice.wide : choice.narrow).value = value;
  },
});

/**
 * The part of the canvas's bottom-right corner the minimap covers: measured from its element in
 * `root` when there is one, else from its known size.
 */
export function minimapCover(root: HTMLElement | null): { width: number; height: number } {
  const element = root?.querySelector(".minimap");
  const canvas = root?.getBoundingClientRect();
  if (element && canvas) {
    const rect = element.getBoundingClientRect();
    return { width: canvas.right - rect.left, height: canvas.bottom - rect.top };
  }
  return minimapOpen.value
    ? { width: MINIMAP_WIDTH + PANEL_MARGIN, height: MINIMAP_HEIGHT + TOGGLE.height + PANEL_MARGIN }
    : { width: TOGGLE.width + PANEL_MARGIN, height: TOGGLE.height + PANEL_MARGIN };
}
