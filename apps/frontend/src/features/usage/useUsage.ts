import { ref, watch, type Ref } from "vue";
import type { ApiError } from "../../shared/api/errors.ts";
import { usageApi, type UsageFilter, type UsageReport } from "./usage-api.ts";

/**
 * The usage report of what `filter` names, fetched again when the filter or `refresh`'s value changes (e.g. when a run or
 * an agent's loop ends). No report (null) while nothing is named or before the first answer; a failed fetch keeps the last
 * and is told to `onAnswer` (null when a fetch succeeds).
 */
export function useUsage(filter: () => UsageFilter | null, refresh: () => unknown = () => 0, onAnswer?: (error: ApiError | null) => void): Ref<UsageReport | null> {
  const report = ref<UsageReport | null>(null);
  let asked = 0;
  watch(
    () => [JSON.stringify(filter()), refresh()] as const,
    async ([key], previous) => {
      const f = filter();
      if (previous && previous[0] !== key) report.value = null;
      if (!f) return;
      const mine = ++asked;
      const r = await usageApi.report(f);
      if (mine !== asked) return;
      if (r.ok) report.value = r.value;
      onAnswer?.(r.ok ? null : r.error);
    },
    { immediate: true },
  );
  return report;
}
