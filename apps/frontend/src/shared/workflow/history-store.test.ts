// @vitest-environment happy-dom
import { beforeEach, describe, expect, it } from "vitest";
import { freshPinia } from "../testing/fresh-pinia.ts";
import { applyCommand, type GraphCommand } from "../graph/commands.ts";
import { sampleWorkflow } from "../testing/catalog.ts";
import { useHistoryStore } from "./history-store.ts";

beforeEach(() => void freshPinia());

/** Applies an edit as the editor does and records it under `tab`. */
function edit(history: ReturnType<typeof useHistoryStore>, tab: string, doc: ReturnType<typeof sampleWorkflow>, command: GraphCommand, label: string, coalesceKey?: string) {
  const applied = applyCommand(doc, command);
  history.push(tab, { label, command, inverse: applied.inverse, ...(coalesceKey ? { coalesceKey } : {}) });
  return applied.doc;
}

describe("history store", () => {
  it("undoes and redoes per tab, each tab with its own stacks", () => {
    const history = useHistoryStore();
    const start = sampleWorkflow();
    const renamed = edit(history, "a", start, { kind: "update-meta", patch: { name: "Renamed" } }, "Rename");
    edit(history, "b", start, { kind: "update-meta", patch: { name: "Other" } }, "Other tab");
    const back = history.stepBack("a", renamed);
    expect(back?.doc.name).toBe(start.name);
    expect(history.of("a").future).toHaveLength(1);
    expect(history.of("b").past.map((e) => e.label)).toEqual(["Other tab"]);
    expect(history.stepForward("a", back!.doc)?.doc.name).toBe("Renamed");
  });

  it("folds edits with one coalesce key into one step until sealed", () => {
    const history = useHistoryStore();
    let doc = sampleWorkflow();
    doc = edit(history, "a", doc, { kind: "update-meta", patch: { description: "t" } }, "Type", "desc");
    doc = edit(history, "a", doc, { kind: "update-meta", patch: { description: "ty" } }, "Type", "desc");
    expect(history.of("a").past).toHaveLength(1);
    history.seal("a");
    edit(history, "a", doc, { kind: "update-meta", patch: { description: "typ" } }, "Type", "desc");
    expect(history.of("a").past).toHaveLength(2);
  });

  it("moves a tab's stacks on rename and forgets them on clear", () => {
    const history = useHistoryStore();
    edit(history, "draft", sampleWorkflow(), { kind: "update-meta", patch: { name: "X" } }, "Name");
    history.rename("draft", "saved-id");
    expect(history.of("draft").past).toEqual([]);
    expect(history.of("saved-id").past).toHaveLength(1);
    history.clear("saved-id");
    expect(history.of("saved-id").past).toEqual([]);
  });
});
