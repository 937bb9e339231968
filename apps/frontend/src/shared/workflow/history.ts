import type { Workflow } from "@weft/types";
import { applyCommand, mergeApplied, type GraphCommand } from "../graph/commands.ts";

export interface HistoryEntry {
  label: string;
  command: GraphCommand;
  inverse: GraphCommand;
  /** Consecutive entries with the same key within COALESCE_MS are folded into one undo step. */
  coalesceKey?: string;
  at: number;
}

export interface HistoryState {
  past: readonly HistoryEntry[];
  future: readonly HistoryEntry[];
}

export const HISTORY_LIMIT = 200;
export const COALESCE_MS = 1500;

export const emptyHistory = (): HistoryState => ({ past: [], future: [] });

/** Records an edit that was just applied; a new edit drops the redo branch. */
export function record(history: HistoryState, entry: HistoryEntry): HistoryState {
  const last = history.past[history.past.length - 1];
  if (last && entry.coalesceKey && last.coalesceKey === entry.coalesceKey && entry.at - last.at <= COALESCE_MS) {
    const merged = mergeApplied(last, entry);
    const folded: HistoryEntry = { ...last, ...merged, at: entry.at };
    return { past: [...history.past.slice(0, -1), folded], future: [] };
  }
  const past = [...history.past, entry];
  return { past: past.length > HISTORY_LIMIT ? past.slice(past.length - HISTORY_LIMIT) : past, future: [] };
}

/** Undoes the last edit; null when there is nothing to undo. */
export function undo(history: HistoryState, doc: Workflow): { history: HistoryState; doc: Workflow; entry: HistoryEntry } | null {
  const entry = history.past[history.past.length - 1];
  if (!entry) return null;
  const applied = applyCommand(doc, entry.inverse);
  // The inverse computed now is the redo: it holds exactly what the undo replaced.
  const redo: HistoryEntry = { ...entry, command: applied.inverse, inverse: entry.inverse, coalesceKey: undefined };
  return { history: { past: history.past.slice(0, -1), future: [redo, ...history.future] }, doc: applied.doc, entry };
}

/** Re-applies the last undone edit; null when there is nothing to redo. */
export function redo(history: HistoryState, doc: Workflow): { history: HistoryState; doc: Workflow; entry: HistoryEntry } | null {
  const entry = history.future[0];
  if (!entry) return null;
  const applied = applyCommand(doc, entry.command);
  const done: HistoryEntry = { ...entry, command: entry.command, inverse: applied.inverse, coalesceKey: undefined };
  return { history: { past: [...history.past, done], future: history.future.slice(1) }, doc: applied.doc, entry };
}
