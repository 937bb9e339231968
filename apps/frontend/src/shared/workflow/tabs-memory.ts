import { z } from "zod";
import { WorkflowSchema, type Workflow } from "@weft/types";
import { api } from "../api/client.ts";
import { readLocal, writeLocal } from "../lib/local-store.ts";
import type { EditorTab } from "./editor-tab.ts";

/** The open tabs and unsaved drafts kept in the browser between visits (written and read by workflows-store.ts). */
const TABS_KEY = "weft.tabs";
const DraftSchema = z.object({ doc: WorkflowSchema, baseRevision: z.number().nullable() });
const TabsMemorySchema = z.object({ active: z.string().nullable(), tabs: z.array(z.object({ id: z.string(), draft: DraftSchema.optional() })) });
/** Just whether there are tabs to reopen, without checking the drafts kept with them. */
const RememberedTabsSchema = z.object({ tabs: z.array(z.object({ id: z.string() })).min(1) });

/** Writes the tabs (a dirty one with its draft); false when the browser refused (storage full). */
export function writeTabsMemory(tabs: readonly EditorTab[], active: string | null, isDirty: (t: EditorTab) => boolean): boolean {
  const memory = {
    active,
    tabs: tabs.filter((t) => !t.readonly || t.builtIn).map((t) => (isDirty(t) ? { id: t.id, draft: { doc: t.doc, baseRevision: t.saved?.revision ?? null } } : { id: t.id })),
  };
  return writeLocal(TABS_KEY, memory);
}

/** Whether the last visit left tabs to reopen. */
export function remembersTabs(): boolean {
  return readLocal(TABS_KEY, RememberedTabsSchema) !== undefined;
}

/** Whether the last visit left a tab of workflow `id` to reopen. */
export function remembersTab(id: string): boolean {
  return readLocal(TABS_KEY, RememberedTabsSchema)?.tabs.some((t) => t.id === id) ?? false;
}

/** What restoring needs of the workflows store. */
export interface RestoreHost {
  tab(id: string): EditorTab | null;
  addTab(doc: Workflow, saved: Workflow | null, options?: { builtIn?: boolean }): EditorTab;
  activate(id: string): void;
  warn(message: string): void;
}

/**
 * Reopens the tabs of the last visit; a draft whose workflow changed on the server since gets a
 * conflict on save. The workflows are fetched at once; the tabs open once `ready` has settled
 * (at start, the node catalogue their nodes are drawn from).
 */
export async function restoreTabs(host: RestoreHost, ready: Promise<unknown>): Promise<void> {
  const memory = readLocal(TABS_KEY, TabsMemorySchema);
  if (!memory) return;
  // Fetched together; the tabs open in their remembered order.
  const fetched = memory.tabs.map((entry) => (host.tab(entry.id) ? null : api.getWorkflow(entry.id)));
  await ready;
  for (const [index, entry] of memory.tabs.entries()) {
    const pending = fetched[index];
    if (!pending || host.tab(entry.id)) continue;
    const result = await pending;
    // Signed out: nothing is known about the workflows; the tabs stay remembered for after sign-in.
    if (!result.ok && result.error.status === 401) return;
    // A draft never saved whose workflow is on the server now was saved after it was remembered.
    if (entry.draft && entry.draft.baseRevision === null && !result.ok) {
      host.addTab(entry.draft.doc, null);
      continue;
    }
    if (!result.ok) {
      if (entry.draft) {
        host.addTab(entry.draft.doc, null);
        host.warn(`"${entry.draft.doc.name}" is no longer on the server; your unsaved copy is open and will be created again on save.`);
      }
      continue;
    }
    const stored = result.value.workflow;
    if (!entry.draft || entry.draft.baseRevision === null || result.value.builtIn) host.addTab(stored, stored, { builtIn: !!result.value.builtIn });
    else host.addTab(entry.draft.doc, entry.draft.baseRevision === stored.revision ? stored : { ...stored, revision: entry.draft.baseRevision ?? 0 });
  }
  if (memory.active && host.tab(memory.active)) host.activate(memory.active);
}
