import { computed, onScopeDispose, watch } from "vue";
import { hashOfRoute, routeFromHash } from "../lib/route.ts";
import { useBuilderStore } from "../stores/builder.ts";
import { useUiStore } from "../stores/ui.ts";

/**
 * The one owner of the location hash. The app's state (view, the Builder's session) decides the
 * hash; a hash the user typed, Back/Forward or a reload decides the state. A change of view is a
 * new history entry (so Back returns to the previous view); a change within the Builder replaces
 * the entry.
 */
export function useHashRoute() {
  const ui = useUiStore();
  const builder = useBuilderStore();
  const wanted = computed(() => hashOfRoute({ view: ui.view, session: ui.view === "builder" ? builder.shownSessionId : null }));
  const plainAddress = () => location.pathname + location.search;
  const write = (hash: string, push: boolean) => (push ? history.pushState(null, "", hash || plainAddress()) : history.replaceState(history.state, "", hash || plainAddress()));
  /** The hash the app last wrote or took in: a different one is a navigation the app has not taken in yet. */
  let known = location.hash;

  function takeIn() {
    const route = routeFromHash(location.hash);
    ui.view = route.view;
    if (route.view === "builder") builder.showSession(route.session);
    // An address the app shows otherwise (unknown, or a session it cannot leave now) is corrected in place.
    if (wanted.value !== location.hash) write(wanted.value, false);
    known = location.hash;
  }

  watch(wanted, (hash) => {
    // A navigation whose event has not come yet (the page was busy) wins over state that changed meanwhile.
    if (location.hash !== known) return takeIn();
    if (hash === location.hash) return;
    write(hash, routeFromHash(hash).view !== routeFromHash(location.hash).view);
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
