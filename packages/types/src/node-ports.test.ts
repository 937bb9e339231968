import { describe, expect, it } from "vitest";
import { declaredPorts, NodeSpecSchema, WorkflowNodeSchema, type WorkflowNode } from "./index.ts";

const template = NodeSpecSchema.parse({
  type: "core:text-template",
  title: "Text template",
  inputs: [{ id: "values", type: "any", multi: true }],
  outputs: [{ id: "text", type: "string" }],
});
const skill = NodeSpecSchema.parse({ type: "core:skill", title: "Skill", flags: { dynamicPorts: true } });
const valuePort = { inputs: [{ id: "value", type: "any" }], outputs: [{ id: "value", type: "any" }] };
const input = NodeSpecSchema.parse({ type: "core:workflow-input", title: "In", ...valuePort });
const output = NodeSpecSchema.parse({ type: "core:workflow-output", title: "Out", ...valuePort });
const node = (raw: unknown): WorkflowNode => WorkflowNodeSchema.parse(raw);

describe("declaredPorts", () => {
  it("gives a plain node its spec's own port lists (so they can be cached per spec)", () => {
    const ports = declaredPorts(node({ id: "t", type: "core:text-template" }), template);
    expect(ports.inputs).toBe(template.inputs);
    expect(ports.outputs).toBe(template.outputs);
  });

  it("takes a dynamic node's own ports with defaults filled, also for a type nobody knows", () => {
    const own = { id: "s", type: "core:skill", ports: { inputs: [{ id: "q", type: "string" }], outputs: [{ id: "a", type: "json" }] } };
    // An unparsed workflow (the engine takes those too) lacks the schema defaults.
    const raw = own as unknown as WorkflowNode;
    expect(declaredPorts(raw, skill).inputs).toEqual([{ id: "q", type: "string", required: false, multi: false }]);
    expect(declaredPorts(node({ ...own, type: "plugin:gone" }), undefined).outputs.map((p) => p.id)).toEqual(["a"]);
    expect(declaredPorts(node({ id: "s", type: "core:skill" }), skill)).toEqual({ inputs: [], outputs: [] });
  });

  it("types an interface node's value port by its portType; an input's value is never required", () => {
    const i = declaredPorts(node({ id: "i", type: "core:workflow-input", config: { name: "x", portType: "number" } }), input);
    expect(i.outputs[0]).toMatchObject({ id: "value", type: "number" });
    expect(i.inputs[0]).toMatchObject({ id: "value", type: "number", required: false });
    const o = declaredPorts(node({ id: "o", type: "core:workflow-output", config: { name: "y", portType: "boolean" } }), output);
    expect([o.inputs[0]?.type, o.outputs[0]?.type]).toEqual(["boolean", "boolean"]);
    const untyped = declaredPorts(node({ id: "o", type: "core:workflow-output", config: { name: "y", portType: "nope" } }), output);
    expect(untyped.inputs[0]?.type).toBe("any");
  });
});
