export { useBuilderStore } from "./builder-store.ts";
export { useBuilderEntry } from "./useBuilderEntry.ts";

/** The Builder workbench (#/builder), loaded on first use (`defineAsyncComponent` in App.vue). */
export const loadBuilderWorkbench = () => import("./BuilderWorkbench.vue");
