// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { applyCommand } from "./commands.ts";
import { checkConnection, connectCommand, incomingEdges, reorderEdgeCommand } from "./connection.ts";
import { sampleWorkflow, testLookup, testWorkflow } from "../testing/catalog.ts";

describe("checkConnection", () => {
  const doc = sampleWorkflow();

  it("accepts fitting types and refuses others with portTypeMismatch's reason and the two types (for the converter offer)", () => {
    expect(checkConnection(doc, testLookup, { source: "number_1", sourceHandle: "value", target: "text_1", targetHandle: "vars" })).toEqual({ ok: true });
    const refused = checkConnection(doc, testLookup, { source: "llm_1", sourceHandle: "text", target: "add_1", targetHandle: "a" });
    expect(refused).toEqual({ ok: false, reason: "a string output cannot feed a number input (text → a)", mismatch: { from: "string", to: "number" } });
  });

  it("refuses self loops, unknown ports and cycles, naming the cycle", () => {
    expect(checkConnection(doc, testLookup, { source: "add_1", sourceHandle: "sum", target: "add_1", targetHandle: "a" })).toMatchObject({ ok: false, reason: "a node cannot feed itself" });
    expect(checkConnection(doc, testLookup, { source: "add_1", sourceHandle: "nope", target: "number_1", targetHandle: "value" })).toMatchObject({ ok: false, reason: '"add_1" has no output "nope"' });
    const chain = applyCommand(doc, {
      kind: "add",
      elements: {
        nodes: [{ id: "add_2", type: "core:add", position: { x: 0, y: 0 }, config: {}, inputs: {} }],
        edges: [{ id: "e", source: "add_1", sourceHandle: "sum", target: "add_2", targetHandle: "a" }],
        annotations: [],
      },
    }).doc;
    expect(checkConnection(chain, testLookup, { source: "add_2", sourceHandle: "sum", target: "number_1", targetHandle: "value" })).toEqual({
      ok: false,
      reason: "this edge would make a cycle: number_1 → add_1 → add_2 → number_1",
    });
  });

  it("a single input already fed is replaced; a multi input takes several edges in order", () => {
    const check = checkConnection(doc, testLookup, { source: "number_2", sourceHandle: "value", target: "add_1", targetHandle: "a" });
    expect(check).toEqual({ ok: true, replaces: "number_1.value->add_1.a" });
    if (!check.ok) throw new Error("unreachable");
    const replaced = applyCommand(doc, connectCommand({ source: "number_2", sourceHandle: "value", target: "add_1", targetHandle: "a" }, check)).doc;
    expect(incomingEdges(replaced, "add_1", "a").map((e) => e.source)).toEqual(["number_2"]);

    let multi = applyCommand(doc, { kind: "add", elements: { nodes: [{ id: "join_1", type: "core:join", position: { x: 0, y: 0 }, config: {}, inputs: {} }], edges: [], annotations: [] } }).doc;
    for (const source of ["text_1", "llm_1"]) {
      const req = { source, sourceHandle: "text", target: "join_1", targetHandle: "parts" };
      const c = checkConnection(multi, testLookup, req);
      expect(c).toEqual({ ok: true });
      if (c.ok) multi = applyCommand(multi, connectCommand(req, c)).doc;
    }
    expect(incomingEdges(multi, "join_1", "parts").map((e) => e.source)).toEqual(["text_1", "llm_1"]);
    expect(checkConnection(multi, testLookup, { source: "llm_1", sourceHandle: "text", target: "join_1", targetHandle: "parts" })).toEqual({ ok: false, reason: "these ports are already connected" });

    const down = reorderEdgeCommand(multi, "text_1.text->join_1.parts", 1)!;
    const reordered = applyCommand(multi, down).doc;
    expect(incomingEdges(reordered, "join_1", "parts").map((e) => e.source)).toEqual(["llm_1", "text_1"]);
    expect(reorderEdgeCommand(reordered, "text_1.text->join_1.parts", 1)).toBeNull();
    const up = applyCommand(reordered, reorderEdgeCommand(reordered, "text_1.text->join_1.parts", -1)!).doc;
    expect(incomingEdges(up, "join_1", "parts").map((e) => e.source)).toEqual(["text_1", "llm_1"]);
  });

  it("types interface nodes by their portType and checks a skill node's own ports", () => {
    const wf = testWorkflow({
      nodes: [
        { id: "in", type: "core:workflow-input", config: { name: "n", portType: "number" } },
        { id: "t", type: "core:text-template" },
        { id: "s", type: "core:skill", config: { workflowId: "x" }, ports: { inputs: [{ id: "q", type: "boolean" }], outputs: [] } },
      ],
    });
    expect(checkConnection(wf, testLookup, { source: "in", sourceHandle: "value", target: "t", targetHandle: "template" })).toMatchObject({
      ok: false,
      reason: expect.stringContaining("a number output cannot feed a string input"),
    });
    expect(checkConnection(wf, testLookup, { source: "in", sourceHandle: "value", target: "s", targetHandle: "q" })).toMatchObject({
      ok: false,
      reason: expect.stringContaining("a number output cannot feed a boolean input"),
    });
  });
});
