import type { VueFlowStore } from "@vue-flow/core";

/** One press of + or −, as Vue Flow's own buttons. */
const STEP = 1.2;

/**
 * Zoom steps that add up. Vue Flow's zoomIn starts each animated step from the view at the moment
 * the animation begins, so presses faster than the frames (a busy machine, a held key) were lost:
 * twelve presses could zoom in once. A press made while a step is under way zooms from where that
 * step is going instead.
 */
export function useZoomSteps(flow: VueFlowStore, duration = 150) {
  let going: { from: number; to: number } | null = null;

  function zoomBy(factor: number) {
    const now = flow.viewport.value.zoom;
    // Only while the view is between where the step began and where it goes: a wheel or a fit since has moved it elsewhere.
    const under = going && Math.min(going.from, going.to) <= now && now <= Math.max(going.from, going.to) ? going.to : now;
    const step = { from: now, to: Math.min(flow.maxZoom.value, Math.max(flow.minZoom.value, under * factor)) };
    going = step;
    void flow.zoomTo(step.to, { duration }).then(() => {
      if (going === step) going = null;
    });
  }

  return { zoomIn: () => zoomBy(STEP), zoomOut: () => zoomBy(1 / STEP) };
}
