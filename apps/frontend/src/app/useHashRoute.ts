import { computed, onScopeDispose, ref, shallowRef, watch, type Ref } from "vue";
import { hashOfRoute, routeFromHash, samePlace, sceneLinkFromHash, sceneLinkHash, type EditorLink } from "../shared/ui/route.ts";
import type { useBuilderStore } from "../features/builder/index.ts";
import { useRunsStore } from "../features/runs/index.ts";
import type { useScenesStore } from "../features/scenes/index.ts";
import { builderFeature, scenesFeature } from "./lazy-features.ts";
import { useUiStore } from "../shared/ui/ui-store.ts";
import { useWorkflowsStore } from "../shared/workflow/workflows-store.ts";

/** Resolves once `ready()` is true. */
function when(ready: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const stop = watch(ready, (yes) => yes && (queueMicrotask(() => stop()), resolve()), { immediate: true });
  });
}

/**
 * The one owner of the location hash. The app's state (view, the Builder's session, the editor's
 * workflow, its shown run and selected node) decides the hash; a hash the user typed or followed as
 * a link, Back/Forward or a reload decides the state. A change of view, workflow or run is a new
 * history entry (so Back returns to it); a change of selection or within the Builder replaces the entry.
 * `booting` is true until the editor has its catalogue and remembered tabs: a link opens after that.
 */
export function useHashRoute(booting: Ref<boolean>) {
  const ui = useUiStore();
  const workflows = useWorkflowsStore();
  const runs = useRunsStore();
  // The Builder's and the Scenes' stores load with their view, not at start (the scenes store also opens its live
  // socket when created); the address they decide waits for them, as it waits for a link's workflow.
  const builder = shallowRef<ReturnType<typeof useBuilderStore> | null>(null);
  const scenes = shallowRef<ReturnType<typeof useScenesStore> | null>(null);
  const loadBuilder = async () => (builder.value ??= (await builderFeature()).useBuilderStore());
  const loadScenes = async () => (scenes.value ??= (await scenesFeature()).useScenesStore());

  /** The stored workflow on the active tab (a never-saved one has no address yet), its shown run and its one selected node. */
  const editorLink = computed((): EditorLink | null => {
    const tab = workflows.active;
    if (!tab || tab.saved === null) return null;
    const node = ui.singleSelected;
    return { workflow: tab.doc.id, run: runs.shown[tab.id] ?? null, node: node && tab.doc.nodes.some((n) => n.id === node) ? node : null };
  });
  const wanted = computed(() => {
    // A scene opened at a timeline entry keeps that address until another scene is picked.
    const at = ui.view === "scenes" ? (scenes.value?.timelineFocus ?? null) : null;
    if (at && at.sceneId === scenes.value?.selectedId) return sceneLinkHash({ scene: at.sceneId, seq: at.seq });
    return hashOfRoute({ view: ui.view, session: ui.view === "builder" ? (builder.value?.shownSessionId ?? null) : null, link: ui.view === "editor" ? editorLink.value : null });
  });
  const plainAddress = () => location.pathname + location.search;
  const write = (hash: string, push: boolean) => (push ? history.pushState(null, "", hash || plainAddress()) : history.replaceState(history.state, "", hash || plainAddress()));
  /** The hash the app last wrote or took in: a different one is a navigation the app has not taken in yet. */
  let known = location.hash;
  /** The page is a reload (or Back into it): the first address taken in is the one it left, not a link followed. */
  let reloaded = ["reload", "back_forward"].includes((performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined)?.type ?? "");
  /** While a link opens, the state is on its way to it: the address waits. */
  const opening = ref(false);

  function correct() {
    // An address the app shows otherwise (unknown, or a session it cannot leave now) is corrected in place.
    if (wanted.value !== location.hash) write(wanted.value, false);
    known = location.hash;
  }

  async function openLink(link: EditorLink, reload: boolean) {
    opening.value = true;
    try {
      await when(() => !booting.value);
      // A reload comes back to the tab it left, with its own viewport: the node is selected again, not brought into view.
      // A link followed to a workflow open already (in this page, or in a new one that remembers its tab) shows the node.
      const returning = reload && !link.run && workflows.active?.doc.id === link.workflow;
      // A run opens as everywhere else: a tab's own run stays on it, any other run read-only as it ran.
      const shown = link.run ? await runs.inspectRun(link.run) : !!(await workflows.open(link.workflow));
      if (shown && link.node) {
        const node = link.node;
        await when(() => !!ui.canvas?.sizeOf(node) || !workflows.active?.doc.nodes.some((n) => n.id === node));
        if (returning) ui.canvas?.select([node]);
        else ui.canvas?.showNode(node);
      }
    } finally {
      opening.value = false;
    }
    if (location.hash === known) correct();
  }

  /** Shows what the address names in a view whose store loads first (at once when loaded already). */
  async function openInView<S>(load: () => Promise<S>, show: (store: S) => void) {
    opening.value = true;
    try {
      show(await load());
    } catch {
      ui.toast("error", "Could not load this view: reload the page.");
    } finally {
      opening.value = false;
    }
    if (location.hash === known) correct();
  }

  function takeIn() {
    const reload = reloaded;
    reloaded = false;
    const route = routeFromHash(location.hash);
    ui.view = route.view;
    const sceneLink = route.view === "scenes" ? sceneLinkFromHash(location.hash) : null;
    known = location.hash;
    if (route.view === "builder") return void openInView(loadBuilder, (store) => store.showSession(route.session));
    if (sceneLink && sceneLink.seq !== null) return void openInView(loadScenes, (store) => void store.openAt(sceneLink.scene, sceneLink.seq));
    if (route.link && hashOfRoute(route) !== wanted.value) return void openLink(route.link, reload);
    if (!opening.value) correct();
  }

  // A view entered from the app (a button, the Builder's entry) decides the address from its store too.
  watch(
    () => ui.view,
    (view) => {
      if (view === "builder") loadBuilder().catch(() => ui.toast("error", "Could not load the Builder: reload the page."));
      if (view === "scenes") loadScenes().catch(() => ui.toast("error", "Could not load Scenes: reload the page."));
    },
    { immediate: true },
  );

  watch(wanted, (hash) => {
    if (opening.value) return;
    // A navigation whose event has not come yet (the page was busy) wins over state that changed meanwhile.
    if (location.hash !== known) return takeIn();
    if (hash === location.hash) return;
    write(hash, !samePlace(routeFromHash(hash), routeFromHash(location.hash)));
    known = location.hash;
  });

  const onNavigate = () => location.hash !== known && takeIn();
  addEventListener("hashchange", onNavigate);
  addEventListener("popstate", onNavigate);
  onScopeDispose(() => {
    removeEventListener("hashchange", onNavigate);
    removeEventListener("popstate", onNavigate);
  });
  takeIn();
}
