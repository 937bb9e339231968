// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { applyCommand } from "../../../shared/graph/commands.ts";
import { annotationFlowId, nodesInFrame, splitFlowIds, toFlowEdges, toFlowNodes } from "./flow-elements.ts";
import { sampleWorkflow } from "../../../shared/testing/catalog.ts";

describe("workflow ↔ Vue Flow elements", () => {
  it("draws frames under nodes, keeps ids apart, and reuses the elements an edit did not touch", () => {
    const doc = sampleWorkflow();
    const first = toFlowNodes(doc);
    expect(first[0]).toMatchObject({ id: "annotation/frame_1", type: "frame", zIndex: -10 });
    expect(first.slice(1).map((n) => n.id)).toEqual(doc.nodes.map((n) => n.id));
    const edited = applyCommand(doc, { kind: "move", nodes: { llm_1: { x: 1, y: 2 } }, annotations: {} }).doc;
    const second = toFlowNodes(edited);
    expect(second[1]).toBe(first[1]); // text_1 untouched: same element
    expect(second[2]).not.toBe(first[2]);
    expect(second[2].position).toEqual({ x: 1, y: 2 });
    expect(toFlowEdges(edited)[0]).toBe(toFlowEdges(doc)[0]);
    expect(splitFlowIds(["text_1", annotationFlowId("frame_1")])).toEqual({ nodes: ["text_1"], annotations: ["frame_1"] });
  });

  it("gives only the nodes accepted, all annotations, and the edges with both ends accepted", () => {
    const doc = sampleWorkflow();
    const only = (id: string) => id === "number_1" || id === "add_1";
    expect(toFlowNodes(doc, undefined, only).map((n) => n.id)).toEqual(["annotation/frame_1", "number_1", "add_1"]);
    expect(toFlowEdges(doc, only).map((e) => [e.source, e.target])).toEqual([["number_1", "add_1"]]);
  });

  it("knows which nodes a frame holds", () => {
    const doc = sampleWorkflow();
    expect(nodesInFrame(doc, doc.annotations[0])).toEqual(["text_1", "llm_1"]);
  });
});
