import { ref, watch, type Ref } from "vue";
import { usageApi, type UsageFilter, type UsageReport } from "./usage-api.ts";

/**
 * The usage report of what `filter` names, fetched again when the filter or `refresh`'s value changes (e.g. when a run or
 * an agent's loop ends). No report (null) while nothing is named or before the first answer; a failed fetch keeps the last.
 */
export function useUsage(filter: () => UsageFilter | null, refresh: () => unknown = () => 0): Ref<UsageReport | null> {
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
      if (r.ok && mine === asked) report.value = r.value;
    },
    { immediate: true },
  );
  return report;
}
