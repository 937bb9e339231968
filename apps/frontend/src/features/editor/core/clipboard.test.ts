// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { applyCommand } from "../../../shared/graph/commands.ts";
import { copySelection, parseClipText, pasteClip } from "./clipboard.ts";
import { sampleWorkflow, testWorkflow } from "../../../shared/testing/catalog.ts";

describe("copy and paste", () => {
  it("copies the selected nodes with the edges between them only", () => {
    const clip = copySelection(sampleWorkflow(), { nodes: ["number_1", "add_1"], annotations: [] });
    expect(clip.nodes.map((n) => n.id)).toEqual(["number_1", "add_1"]);
    expect(clip.edges.map((e) => e.id)).toEqual(["number_1.value->add_1.a"]);
  });

  it("pasting into the same workflow gives fresh ids and rewires the edges to the copies", () => {
    const doc = sampleWorkflow();
    const clip = copySelection(doc, { nodes: ["number_1", "add_1"], annotations: ["frame_1"] });
    const paste = pasteClip(doc, clip, { x: 1000, y: 1000 });
    expect(paste.nodeIds).toEqual(["number_3", "add_2"]);
    expect(paste.annotationIds).toEqual(["frame_2"]);
    const after = applyCommand(doc, paste.command).doc;
    const edge = after.edges[after.edges.length - 1];
    expect(edge).toEqual({ id: "number_3.value->add_2.a", source: "number_3", sourceHandle: "value", target: "add_2", targetHandle: "a" });
    // the clip's top-left corner (the frame at -20,-20) lands on the paste point
    expect(after.annotations[1].position).toEqual({ x: 1000, y: 1000 });
    expect(after.nodes.find((n) => n.id === "number_3")!.position).toEqual({ x: 1020, y: 1220 });
    expect(after.nodes.find((n) => n.id === "number_3")!.inputs).toEqual({ value: 2 });
    expect(new Set(after.nodes.map((n) => n.id)).size).toBe(after.nodes.length);
  });

  it("pasting into another workflow keeps free ids; the JSON round trip through the system clipboard works", () => {
    const clip = copySelection(sampleWorkflow(), { nodes: ["text_1", "llm_1"], annotations: [] });
    const parsed = parseClipText(JSON.stringify(clip));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const other = testWorkflow({ id: "other", nodes: [{ id: "llm_1", type: "core:llm" }] });
    const paste = pasteClip(other, parsed.clip, { x: 0, y: 0 });
    expect(paste.nodeIds).toEqual(["text_1", "llm_2"]);
    expect(applyCommand(other, paste.command).doc.edges.map((e) => e.id)).toEqual(["text_1.text->llm_2.prompt"]);
  });

  it("a whole workflow document can be pasted; anything else is refused with the reason", () => {
    const whole = parseClipText(JSON.stringify(sampleWorkflow()));
    expect(whole.ok && whole.clip.nodes.length).toBe(5);
    expect(parseClipText("hello")).toEqual({ ok: false, reason: "the clipboard does not hold Weft nodes (it is not JSON)" });
    expect(parseClipText("[1,2]")).toEqual({ ok: false, reason: "the clipboard holds JSON, but neither copied Weft nodes nor a workflow" });
    const broken = parseClipText(JSON.stringify({ kind: "weft/clipboard", version: 1, nodes: [{ id: "a b", type: "core:add" }], edges: [], annotations: [] }));
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.reason).toContain("nodes.0.id");
  });
});
