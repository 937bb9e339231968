import { defineStore } from "pinia";
import { computed, ref, shallowRef } from "vue";
import type { NodeSpec } from "@weft/types";
import { api } from "../api/client.ts";
import type { ApiError } from "../api/errors.ts";

export interface CategoryGroup {
  category: string;
  specs: NodeSpec[];
}

/**
 * Alphabetical, ignoring case. Not localeCompare: its first call loads the locale's collation data
 * (~0.2 s on a busy machine), on the way to the first render; the catalogue's titles are plain English.
 */
function byText(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The node catalogue from `GET /api/nodes`. */
export const useNodesStore = defineStore("nodes", () => {
  const specs = shallowRef<NodeSpec[]>([]);
  const status = ref<"idle" | "loading" | "ready" | "error">("idle");
  const error = shallowRef<ApiError | null>(null);
  const byType = computed(() => new Map(specs.value.map((s) => [s.type, s])));
  const categories = computed<CategoryGroup[]>(() => {
    const groups = new Map<string, NodeSpec[]>();
    for (const spec of specs.value) {
      const list = groups.get(spec.category);
      if (list) list.push(spec);
      else groups.set(spec.category, [spec]);
    }
    return [...groups.entries()].sort(([a], [b]) => byText(a, b)).map(([category, list]) => ({ category, specs: list.sort((a, b) => byText(a.title, b.title)) }));
  });

  const lookup = (type: string): NodeSpec | undefined => byType.value.get(type);

  async function load() {
    status.value = "loading";
    const result = await api.listNodes();
    if (result.ok) {
      specs.value = result.value;
      status.value = "ready";
      error.value = null;
    } else {
      status.value = "error";
      error.value = result.error;
    }
    return result;
  }

  return { specs, status, error, byType, categories, lookup, load };
});
