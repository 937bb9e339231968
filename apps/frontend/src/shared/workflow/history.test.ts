// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { applyCommand, type GraphCommand } from "../graph/commands.ts";
import { emptyHistory, record, redo, undo, COALESCE_MS } from "./history.ts";
import { sampleWorkflow } from "../testing/catalog.ts";

const edits: Record<string, GraphCommand> = {
  "add node and edge": {
    kind: "add",
    elements: {
      nodes: [{ id: "join_1", type: "core:join", position: { x: 600, y: 0 }, config: {}, inputs: {} }],
      edges: [{ id: "llm_1.text->join_1.parts", source: "llm_1", sourceHandle: "text", target: "join_1", targetHandle: "parts" }],
      annotations: [],
    },
  },
  "remove a node (its edges go too)": { kind: "remove", ids: { nodes: ["number_1"], edges: [], annotations: [] } },
  "remove an edge and a frame": { kind: "remove", ids: { nodes: [], edges: ["number_2.value->add_1.b"], annotations: ["frame_1"] } },
  move: { kind: "move", nodes: { text_1: { x: 10, y: 20 }, add_1: { x: 5, y: 5 } }, annotations: { frame_1: { x: 1, y: 2 } } },
  "edit a literal input": { kind: "update-node", id: "number_1", patch: { inputs: { value: 7 } } },
  "set a label (absent before)": { kind: "update-node", id: "llm_1", patch: { label: "Greeter", ui: { collapsed: true } } },
  "edit an annotation": { kind: "update-annotation", id: "frame_1", patch: { text: "Renamed", size: { width: 10, height: 10 } } },
  "rename the workflow": { kind: "update-meta", patch: { name: "Renamed", description: "new" } },
  batch: {
    kind: "batch",
    commands: [
      { kind: "remove", ids: { nodes: ["add_1"], edges: [], annotations: [] } },
      { kind: "update-node", id: "text_1", patch: { inputs: { template: "Bye" } } },
      { kind: "move", nodes: { llm_1: { x: 0, y: 0 } }, annotations: {} },
    ],
  },
};

describe("graph commands", () => {
  for (const [name, command] of Object.entries(edits)) {
    it(`${name}: applies, undoes to the exact original, redoes to the exact result`, () => {
      const original = sampleWorkflow();
      const snapshot = structuredClone(original);
      const { doc: edited } = applyCommand(original, command);
      expect(edited).not.toEqual(original);
      expect(original).toEqual(snapshot); // the input document is never mutated

      const history = record(emptyHistory(), { label: name, command, inverse: applyCommand(original, command).inverse, at: 0 });
      const undone = undo(history, edited);
      expect(undone).not.toBeNull();
      expect(undone!.doc).toEqual(original);
      expect(JSON.stringify(undone!.doc)).toBe(JSON.stringify(original)); // same order of keys and elements

      const redone = redo(undone!.history, undone!.doc);
      expect(redone!.doc).toEqual(edited);
      // and once more round the loop
      expect(undo(redone!.history, redone!.doc)!.doc).toEqual(original);
    });
  }

  it("removing a node removes exactly the edges touching it", () => {
    const { doc } = applyCommand(sampleWorkflow(), edits["remove a node (its edges go too)"]);
    expect(doc.nodes.map((n) => n.id)).not.toContain("number_1");
    expect(doc.edges.map((e) => e.id)).toEqual(["text_1.text->llm_1.prompt", "number_2.value->add_1.b"]);
  });

  it("a patch with undefined removes the field", () => {
    const labelled = applyCommand(sampleWorkflow(), { kind: "update-node", id: "llm_1", patch: { label: "x" } }).doc;
    const cleared = applyCommand(labelled, { kind: "update-node", id: "llm_1", patch: { label: undefined } }).doc;
    expect("label" in cleared.nodes[1]).toBe(false);
  });

  it("edits of missing ids change nothing", () => {
    const doc = sampleWorkflow();
    expect(applyCommand(doc, { kind: "update-node", id: "ghost", patch: { label: "x" } }).doc).toBe(doc);
  });
});

describe("history", () => {
  it("folds keystrokes on the same field into one undo step, and not after a pause", () => {
    let doc = sampleWorkflow();
    let history = emptyHistory();
    const type = (value: string, at: number) => {
      const command: GraphCommand = { kind: "update-node", id: "text_1", patch: { inputs: { template: value } } };
      const applied = applyCommand(doc, command);
      doc = applied.doc;
      history = record(history, { label: "edit", command, inverse: applied.inverse, coalesceKey: "text_1.inputs.template", at });
    };
    type("H", 0);
    type("Hi", 100);
    type("Hi!", 200);
    expect(history.past).toHaveLength(1);
    type("Hi!!", 200 + COALESCE_MS + 1);
    expect(history.past).toHaveLength(2);
    const once = undo(history, doc)!;
    expect(once.doc.nodes[0].inputs.template).toBe("Hi!");
    const twice = undo(once.history, once.doc)!;
    expect(twice.doc.nodes[0].inputs.template).toBe("Hello {{name}}");
    expect(undo(twice.history, twice.doc)).toBeNull();
    const again = redo(twice.history, twice.doc)!;
    expect(again.doc.nodes[0].inputs.template).toBe("Hi!");
  });

  it("a new edit after undo drops the redo branch", () => {
    const doc = sampleWorkflow();
    const c1: GraphCommand = { kind: "update-meta", patch: { name: "A" } };
    const a1 = applyCommand(doc, c1);
    let history = record(emptyHistory(), { label: "a", command: c1, inverse: a1.inverse, at: 0 });
    const u = undo(history, a1.doc)!;
    const c2: GraphCommand = { kind: "update-meta", patch: { name: "B" } };
    const a2 = applyCommand(u.doc, c2);
    history = record(u.history, { label: "b", command: c2, inverse: a2.inverse, at: 10 });
    expect(redo(history, a2.doc)).toBeNull();
    expect(history.past.map((e) => e.label)).toEqual(["b"]);
  });
});
