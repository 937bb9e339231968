import { describe, expect, it } from "vitest";
import { NodeSpecSchema, type NodeSpec, type PortSpec } from "@weft/types";
import { fitScore, newNodePorts, portChoices } from "./port-choice.ts";
import { testLookup } from "../../../shared/testing/catalog.ts";

const spec = (type: string): NodeSpec => {
  const found = testLookup(type);
  if (!found) throw new Error(`no ${type} in the test catalog`);
  return found;
};
// The real text template's inputs, in its order: json Variables first, then any Values, then the string Template.
const template = NodeSpecSchema.parse({
  type: "core:text-template",
  title: "Text template",
  category: "text",
  inputs: [
    { id: "vars", type: "json", label: "Variables" },
    { id: "values", type: "any", multi: true, label: "Values" },
    { id: "template", type: "string", label: "Template" },
  ],
  outputs: [{ id: "text", type: "string", label: "Text" }],
});
const port = (id: string, type: PortSpec["type"]): PortSpec => ({ id, type, required: false, multi: false });

describe("fitScore", () => {
  it("ranks the same type over a port taking anything over json, and refuses what does not fit", () => {
    expect(fitScore("string", "string")).toBe(3);
    expect(fitScore("string", "any")).toBe(2);
    expect(fitScore("integer", "number")).toBe(2);
    expect(fitScore("string", "json")).toBe(1);
    expect(fitScore("string", "number")).toBe(0);
  });
});

describe("portChoices", () => {
  it("sends a dragged string output to the template's string input, never to its json Variables first", () => {
    const choices = portChoices([port("value", "string")], "source", (wire) => newNodePorts(template, wire));
    expect(choices.map((c) => c.to.id)).toEqual(["template", "values", "vars"]);
  });

  it("creates a workflow output for an array with the array type, so the wire fits it exactly", () => {
    const ports = newNodePorts(spec("core:workflow-output"), "array");
    expect(ports.inputs.map((p) => [p.id, p.type])).toEqual([["value", "array"]]);
    const choices = portChoices([port("results", "array")], "source", (wire) => newNodePorts(spec("core:workflow-output"), wire));
    expect(choices.map((c) => [c.from.id, c.to.id, c.to.type])).toEqual([["results", "value", "array"]]);
  });

  it("offers no input of a workflow input (the run fills it), and gives it the dragged input's type", () => {
    expect(portChoices([port("results", "array")], "source", (wire) => newNodePorts(spec("core:workflow-input"), wire))).toEqual([]);
    const choices = portChoices([port("prompt", "string")], "target", (wire) => newNodePorts(spec("core:workflow-input"), wire));
    expect(choices.map((c) => [c.to.id, c.to.type])).toEqual([["value", "string"]]);
  });

  it("pairs each of a selected node's outputs with the new node's ports, the best fit first", () => {
    const choices = portChoices([port("messages", "messages"), port("text", "string")], "source", (wire) => newNodePorts(template, wire));
    expect(choices.map((c) => `${c.from.id}>${c.to.id}`)).toEqual(["text>template", "messages>values", "text>values", "messages>vars", "text>vars"]);
  });

  it("offers nothing when no port fits", () => {
    expect(portChoices([port("n", "number")], "source", (wire) => newNodePorts(spec("core:join"), wire))).toEqual([]);
  });
});
