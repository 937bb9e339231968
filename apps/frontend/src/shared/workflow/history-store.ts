import { defineStore } from "pinia";
import { shallowReactive } from "vue";
import type { Workflow } from "@weft/types";
import type { GraphCommand } from "../graph/commands.ts";
import { emptyHistory, record, redo, undo, type HistoryState } from "./history.ts";

/** Undo/redo stacks, one per open tab. */
export const useHistoryStore = defineStore("history", () => {
  const stacks = shallowReactive(new Map<string, HistoryState>());

  const of = (tabId: string): HistoryState => stacks.get(tabId) ?? emptyHistory();

  function push(tabId: string, entry: { label: string; command: GraphCommand; inverse: GraphCommand; coalesceKey?: string }) {
    stacks.set(tabId, record(of(tabId), { ...entry, at: Date.now() }));
  }

  function stepBack(tabId: string, doc: Workflow) {
    const result = undo(of(tabId), doc);
    if (result) stacks.set(tabId, result.history);
    return result;
  }

  function stepForward(tabId: string, doc: Workflow) {
    const result = redo(of(tabId), doc);
    if (result) stacks.set(tabId, result.history);
    return result;
  }

  /** Breaks coalescing so the next edit starts its own undo step (e.g. when a field loses focus). */
  function seal(tabId: string) {
    const h = of(tabId);
    const last = h.past[h.past.length - 1];
    if (last?.coalesceKey) stacks.set(tabId, { past: [...h.past.slice(0, -1), { ...last, coalesceKey: undefined }], future: h.future });
  }

  const clear = (tabId: string) => stacks.delete(tabId);
  const rename = (from: string, to: string) => {
    const h = stacks.get(from);
    stacks.delete(from);
    if (h) stacks.set(to, h);
  };

  return { of, push, stepBack, stepForward, seal, clear, rename };
});
