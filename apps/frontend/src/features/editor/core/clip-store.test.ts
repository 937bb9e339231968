import { beforeEach, describe, expect, it } from "vitest";
import { copySelection } from "./clipboard.ts";
import { freshPinia } from "../../../shared/testing/fresh-pinia.ts";
import { sampleWorkflow } from "../../../shared/testing/catalog.ts";
import { useClipStore } from "./clip-store.ts";

beforeEach(() => void freshPinia());

describe("clip store", () => {
  it("keeps the last copy for every caller until cleared", () => {
    const doc = sampleWorkflow();
    const first = copySelection(doc, { nodes: [doc.nodes[0]!.id], annotations: [] });
    const all = copySelection(doc, { nodes: doc.nodes.map((n) => n.id), annotations: [] });
    const clips = useClipStore();
    expect(clips.clip).toBeNull();
    clips.keep(first);
    expect(useClipStore().clip).toEqual(first);
    clips.keep(all);
    expect(useClipStore().clip?.nodes).toHaveLength(doc.nodes.length);
    clips.clear();
    expect(clips.clip).toBeNull();
  });

  it("starts empty with a fresh pinia, whatever an earlier test copied", () => {
    const doc = sampleWorkflow();
    useClipStore().keep(copySelection(doc, { nodes: [doc.nodes[0]!.id], annotations: [] }));
    freshPinia();
    expect(useClipStore().clip).toBeNull();
  });
});
