import type { ChangePreview, JsonChange, ObjectPreview, PreviewAction, RevisionBase } from "@weft/types";
import type { OverlayEntry } from "../domain/change-set.ts";
import type { ChangeSetRecord } from "../domain/records.ts";
import type { EffectiveView } from "../overlay/effective-view.ts";
import { graphDiff, jsonDiff } from "@weft/types";
import { prettyJson, unifiedDiff } from "./json-diff.ts";

export function revisionBaseOf(entries: readonly OverlayEntry[]): RevisionBase {
  const base: RevisionBase = { workflows: {}, agents: {}, scenes: {}, assets: {} };
  for (const e of entries) {
    if (e.type === "asset") base.assets[e.key] = e.base;
    else base[`${e.type}s`][e.key] = e.base;
  }
  return base;
}

function actionOf(before: unknown, after: unknown, changes: number): PreviewAction {
  if (before === null || before === undefined) return after === null ? "unchanged" : "create";
  if (after === null) return "delete";
  return changes === 0 ? "unchanged" : "update";
}

async function previewEntry(view: EffectiveView, entry: OverlayEntry): Promise<ObjectPreview> {
  if (entry.type === "asset") {
    const stored = await view.assets.state(entry.key);
    const before = stored.kind === "file" ? stored.content : null;
    const storedRevision = stored.kind === "file" ? stored.sha256 : null;
    const changes: JsonChange[] = before === entry.value ? [] : [{ op: before === null ? "add" : entry.value === null ? "remove" : "replace", path: "(content)", before, after: entry.value }];
    return {
      type: "asset",
      key: entry.key,
      action: actionOf(before, entry.value, changes.length),
      baseRevision: entry.base,
      storedRevision,
      stale: storedRevision !== entry.base,
      before,
      after: entry.value,
      changes,
      unifiedDiff: unifiedDiff(entry.key, before ?? "", entry.value ?? ""),
    };
  }
  const stored = await view.repository(entry.type).get(entry.key);
  const before = stored?.document ?? null;
  const storedRevision = stored ? stored.document.revision : null;
  // The revision is apply's business: comparing it would report a change on every object.
  const after = entry.value === null ? null : { ...entry.value, revision: storedRevision ?? 0 };
  const changes = before === null || after === null ? [] : jsonDiff(before, after);
  const preview: ObjectPreview = {
    type: entry.type,
    key: entry.key,
    action: actionOf(before, after, changes.length),
    baseRevision: entry.base,
    storedRevision,
    stale: storedRevision !== entry.base,
    before,
    after,
    changes,
    unifiedDiff: unifiedDiff(`${entry.type}s/${entry.key}.json`, prettyJson(before), prettyJson(after)),
  };
  if (entry.type === "workflow") preview.graph = graphDiff((await view.repository("workflow").get(entry.key))?.document ?? null, entry.value);
  return preview;
}

/** The structured diff of a change set against the store as it is now (seed 001 §10 preview pane). */
export async function previewChangeSet(view: EffectiveView, changeSet: ChangeSetRecord): Promise<ChangePreview> {
  const objects = await Promise.all(changeSet.entries.map((e) => previewEntry(view, e)));
  return {
    changeSetId: changeSet.id,
    version: changeSet.version,
    status: changeSet.status,
    summary: changeSet.summary,
    validation: changeSet.validation ?? null,
    objects,
    revisionBase: revisionBaseOf(changeSet.entries),
  };
}
