import { describe, expect, it } from "vitest";
import { NodeSpecSchema, WorkflowSchema, interfaceInputsJsonSchema, nodeInputsJsonSchema, portTypeMismatch, workflowInterface, RunEventSchema } from "./index.ts";

describe("port types", () => {
  it("accepts fitting connections and explains refused ones", () => {
    expect(portTypeMismatch("integer", "number")).toBeNull();
    expect(portTypeMismatch("string", "any")).toBeNull();
    expect(portTypeMismatch("array", "json")).toBeNull();
    expect(portTypeMismatch("string", "number")).toBe("a string output cannot feed a number input");
    expect(portTypeMismatch("number", "integer")).not.toBeNull();
  });
});

describe("workflow interface", () => {
  const wf = WorkflowSchema.parse({
    id: "w",
    name: "W",
    nodes: [
      { id: "in", type: "core:workflow-input", config: { name: "topic", portType: "string", required: true, description: "What to write about" } },
      { id: "out", type: "core:workflow-output", config: { name: "text", portType: "string" } },
      { id: "t", type: "core:text-template" },
    ],
  });

  it("is derived from the interface nodes", () => {
    const iface = workflowInterface(wf);
    expect(iface.inputs.map((p) => [p.name, p.type, p.required, p.nodeId])).toEqual([["topic", "string", true, "in"]]);
    expect(iface.outputs.map((p) => p.name)).toEqual(["text"]);
  });

  it("generates a JSON Schema for the skill parameters", () => {
    expect(interfaceInputsJsonSchema(workflowInterface(wf))).toEqual({
      type: "object",
      properties: { topic: { type: "string", description: "What to write about" } },
      required: ["topic"],
      additionalProperties: false,
    });
  });
});

describe("node spec", () => {
  it("maps options to enums and multi ports to arrays", () => {
    const spec = NodeSpecSchema.parse({
      type: "core:case",
      title: "Case",
      inputs: [
        { id: "mode", type: "string", options: ["upper", "lower"], required: true },
        { id: "parts", type: "string", multi: true },
      ],
    });
    const schema = nodeInputsJsonSchema(spec) as { properties: Record<string, unknown>; required: string[] };
    expect(schema.properties.mode).toEqual({ type: "string", enum: ["upper", "lower"] });
    expect(schema.properties.parts).toEqual({ type: "array", items: { type: "string" } });
    expect(schema.required).toEqual(["mode"]);
  });

  it("rejects a type id without a namespace", () => {
    expect(NodeSpecSchema.safeParse({ type: "template", title: "T" }).success).toBe(false);
  });
});

describe("run events", () => {
  it("parse by their tag and reject unknown tags", () => {
    const ok = RunEventSchema.safeParse({ streamId: "r", seq: 0, ts: 1, type: "node.skipped", nodeId: "a", reason: "upstream failed" });
    expect(ok.success).toBe(true);
    expect(RunEventSchema.safeParse({ streamId: "r", seq: 0, ts: 1, type: "node.exploded" }).success).toBe(false);
  });
});
