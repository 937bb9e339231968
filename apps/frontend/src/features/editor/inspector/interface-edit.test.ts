// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { workflowInterface } from "@weft/types";
import { applyCommand } from "../../../shared/graph/commands.ts";
import { addInterfacePortCommand, interfacePortProblem, updateInterfacePortCommand } from "./interface-edit.ts";
import { sampleWorkflow, testLookup } from "../../../shared/testing/catalog.ts";

describe("interface editor", () => {
  it("adds inputs and outputs as interface nodes and edits their config", () => {
    let doc = sampleWorkflow();
    const input = addInterfacePortCommand(doc, "inputs", testLookup("core:workflow-input")!);
    doc = applyCommand(doc, input.command).doc;
    doc = applyCommand(doc, addInterfacePortCommand(doc, "outputs", testLookup("core:workflow-output")!).command).doc;
    expect(workflowInterface(doc).inputs.map((p) => p.name)).toEqual(["input_1"]);
    expect(workflowInterface(doc).outputs.map((p) => p.name)).toEqual(["output_1"]);
    const node = doc.nodes.find((n) => n.id === input.nodeId)!;
    expect(node.position.x).toBeLessThan(Math.min(...sampleWorkflow().nodes.map((n) => n.position.x)));

    doc = applyCommand(doc, updateInterfacePortCommand(doc, input.nodeId, { name: "topic", portType: "string", required: true, description: "What about", default: "looms" })!).doc;
    expect(workflowInterface(doc).inputs[0]).toMatchObject({ name: "topic", type: "string", required: true, default: "looms", description: "What about" });
  });

  it("refuses names that are not identifiers or that clash on the same side", () => {
    let doc = sampleWorkflow();
    for (const side of ["inputs", "inputs"] as const) doc = applyCommand(doc, addInterfacePortCommand(doc, side, testLookup("core:workflow-input")!).command).doc;
    const [a, b] = workflowInterface(doc).inputs;
    const draft = { name: a.name, portType: "string" as const, required: false, description: "" };
    expect(interfacePortProblem(doc, "inputs", b.nodeId, draft)).toBe(`another input is already called "${a.name}" (node ${a.nodeId})`);
    expect(interfacePortProblem(doc, "inputs", a.nodeId, draft)).toBeNull();
    expect(interfacePortProblem(doc, "inputs", a.nodeId, { ...draft, name: "2nd" })).toContain("must start with a letter");
  });
});
