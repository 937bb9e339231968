import { ref, watch, type Ref } from "vue";
import { versionLabel, type StepForkVersion } from "../../shared/ui/step-fork.ts";
import { VersionsApi } from "./versions-api.ts";

/**
 * The saved versions of agent profile `agentId()` (the newest 50, newest first), as a step fork offers them for its
 * live steps; read again when the id changes. Empty while they load and when they cannot be read: the fork then runs
 * the current profile, which needs no version.
 */
export function useProfileVersions(agentId: () => string | null | undefined): Ref<StepForkVersion[]> {
  const api = new VersionsApi();
  const versions = ref<StepForkVersion[]>([]);
  watch(
    agentId,
    async (id) => {
      versions.value = [];
      if (!id) return;
      const page = await api.list("agents", id);
      if (page.ok && agentId() === id) versions.value = page.value.versions.map((v) => ({ number: v.number, label: versionLabel(v) }));
    },
    { immediate: true },
  );
  return versions;
}
