import { ref, shallowRef } from "vue";
import { defineStore } from "pinia";
import type { DocumentVersion } from "@weft/types";
import { useUiStore } from "../../shared/ui/ui-store.ts";
import { VersionsApi, type VersionedKind } from "./versions-api.ts";

/** One document's version list as a panel shows it. */
export interface VersionList {
  kind: VersionedKind;
  id: string;
  versions: DocumentVersion[];
  latest: number;
  nextBefore?: number;
}

/** The version history of the document a panel shows: its list (paged), one version's content, restoring one. */
export const useVersionsStore = defineStore("versions", () => {
  const api = new VersionsApi();
  const ui = useUiStore();
  const list = shallowRef<VersionList | null>(null);
  const loading = ref(false);

  async function load(kind: VersionedKind, id: string): Promise<void> {
    loading.value = true;
    const result = await api.list(kind, id);
    loading.value = false;
    if (!result.ok) {
      list.value = null;
      ui.apiError("Could not list the versions", result.error);
      return;
    }
    list.value = { kind, id, ...result.value };
  }

  async function loadMore(): Promise<void> {
    const shown = list.value;
    if (!shown?.nextBefore) return;
    const result = await api.list(shown.kind, shown.id, shown.nextBefore);
    if (!result.ok) {
      ui.apiError("Could not list older versions", result.error);
      return;
    }
    list.value = { ...shown, versions: [...shown.versions, ...result.value.versions], nextBefore: result.value.nextBefore };
  }

  async function content(kind: VersionedKind, id: string, number: number): Promise<Record<string, unknown> | null> {
    const result = await api.get(kind, id, number);
    if (!result.ok) {
      ui.apiError(`Could not read version ${number}`, result.error);
      return null;
    }
    return result.value.content;
  }

  /** Restores version `number` over revision `baseRevision`; answers the version it became (null: refused, and said why). */
  async function restore(kind: VersionedKind, id: string, number: number, baseRevision: number): Promise<number | null> {
    const result = await api.restore(kind, id, number, baseRevision);
    if (!result.ok) {
      ui.apiError(`Could not restore version ${number}`, result.error);
      return null;
    }
    await load(kind, id);
    return list.value?.latest ?? null;
  }

  /**
   * Asks first (the current content stays as a version, so nothing is lost; `discards` says what else goes), then
   * restores; the toast offers to go back. Answers the version it became, or null (cancelled or refused).
   */
  async function confirmRestore(kind: VersionedKind, id: string, number: number, baseRevision: number, discards: string | undefined, onRestored: () => Promise<void>): Promise<number | null> {
    const latest = list.value?.id === id ? list.value.latest : undefined;
    const choice = await ui.confirm({
      title: `Restore version ${number}?`,
      message: `Its content is saved as a new version${latest ? ` (${latest + 1})` : ""}. The current content stays as version ${latest ?? "it is"}, so you can restore it back.${discards ? ` ${discards}` : ""}`,
      choices: [{ id: "restore", label: `Restore version ${number}`, kind: "primary" }],
    });
    if (choice !== "restore") return null;
    const became = await restore(kind, id, number, baseRevision);
    if (became === null) return null;
    await onRestored();
    if (latest !== undefined) {
      ui.toast("success", `Restored version ${number} as version ${became}.`, undefined, 8000, {
        label: `Undo (back to version ${latest})`,
        // The restore moved the revision by one.
        run: () => void restore(kind, id, latest, baseRevision + 1).then((back) => (back === null ? undefined : onRestored())),
      });
    }
    return became;
  }

  return { list, loading, load, loadMore, content, restore, confirmRestore };
});
