// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { nodePorts } from "./ports.ts";
import { createNode } from "./node-factory.ts";
import { testLookup, testWorkflow } from "../testing/catalog.ts";

describe("node ports", () => {
  it("takes the spec's ports, a dynamic node's own ports, interface types and the $error output", () => {
    const wf = testWorkflow({
      nodes: [
        { id: "t", type: "core:text-template", policy: { onError: "route" } },
        { id: "s", type: "core:skill", ports: { inputs: [{ id: "q", type: "string" }], outputs: [{ id: "a", type: "json" }] } },
        { id: "i", type: "core:workflow-input", config: { name: "x", portType: "number" } },
        { id: "o", type: "core:workflow-output", config: { name: "y", portType: "boolean" } },
      ],
    });
    const [t, s, i, o] = wf.nodes.map((n) => nodePorts(n, testLookup(n.type)));
    expect(t.outputs.map((p) => p.id)).toEqual(["text", "$error"]);
    expect(s.inputs.map((p) => [p.id, p.type])).toEqual([["q", "string"]]);
    expect(i.outputs[0].type).toBe("number");
    expect(i.inputs).toEqual([]); // filled by the engine, not wired
    expect(o.inputs[0].type).toBe("boolean");
    // the same node object gives the same ports object (nodes are immutable)
    expect(nodePorts(wf.nodes[0], testLookup("core:text-template"))).toBe(t);
  });

  it("new nodes get readable unique ids and interface nodes a free name", () => {
    const wf = testWorkflow({ nodes: [{ id: "workflow_input_1", type: "core:workflow-input", config: { name: "input_1" } }] });
    const node = createNode(wf, testLookup("core:workflow-input")!, { x: 10.4, y: 20.6 });
    expect(node).toMatchObject({ id: "workflow_input_2", position: { x: 10, y: 21 }, config: { name: "input_2", portType: "string" } });
  });
});
