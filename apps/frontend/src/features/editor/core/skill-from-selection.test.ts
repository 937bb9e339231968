// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { workflowInterface } from "@weft/types";
import { applyCommand } from "../../../shared/graph/commands.ts";
import { checkConnection } from "../../../shared/graph/connection.ts";
import { extractSkill } from "./skill-from-selection.ts";
import { setSkillCommand } from "../../../shared/graph/skill-node.ts";
import { sampleWorkflow, testLookup, testWorkflow } from "../../../shared/testing/catalog.ts";

describe("create a skill from a selection", () => {
  it("cut edges become the interface; the selection is replaced by a wired core:skill node", () => {
    // select number_2 and add_1: number_1 → add_1.a is cut (an input); nothing reads add_1 (no output yet)
    const doc = applyCommand(sampleWorkflow(), {
      kind: "add",
      elements: {
        nodes: [
          { id: "join_1", type: "core:join", position: { x: 600, y: 250 }, config: {}, inputs: {} },
          { id: "t2", type: "core:text-template", position: { x: 600, y: 400 }, config: {}, inputs: {} },
        ],
        edges: [{ id: "add_1.sum->t2.vars", source: "add_1", sourceHandle: "sum", target: "t2", targetHandle: "vars" }],
        annotations: [],
      },
    }).doc;
    const result = extractSkill(doc, ["number_2", "add_1"], testLookup, { id: "adder", name: "Adder" });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const { skill, command, skillNodeId } = result.value;

    const iface = workflowInterface(skill);
    expect(iface.inputs.map((p) => [p.name, p.type])).toEqual([["a", "number"]]);
    expect(iface.outputs.map((p) => [p.name, p.type])).toEqual([["sum", "number"]]);
    expect(skill.nodes.map((n) => n.id).sort()).toEqual(["add_1", "in_a", "number_2", "out_sum"]);
    expect(skill.edges.map((e) => e.id).sort()).toEqual(["add_1.sum->out_sum.value", "in_a.value->add_1.a", "number_2.value->add_1.b"]);

    const after = applyCommand(doc, command).doc;
    expect(after.nodes.map((n) => n.id)).toEqual(["text_1", "llm_1", "number_1", "join_1", "t2", skillNodeId]);
    const node = after.nodes.find((n) => n.id === skillNodeId)!;
    expect(node).toMatchObject({ type: "core:skill", config: { workflowId: "adder" } });
    expect(node.ports!.inputs.map((p) => p.id)).toEqual(["a"]);
    expect(after.edges.map((e) => `${e.source}.${e.sourceHandle}->${e.target}.${e.targetHandle}`)).toEqual(["text_1.text->llm_1.prompt", "number_1.value->skill_1.a", "skill_1.sum->t2.vars"]);
    // the new wiring passes the editor's own connection rules
    for (const e of after.edges) expect(checkConnection({ ...after, edges: after.edges.filter((x) => x !== e) }, testLookup, e).ok).toBe(true);
  });

  it("refuses an empty selection and a selection holding interface nodes", () => {
    expect(extractSkill(sampleWorkflow(), [], testLookup, { id: "s", name: "S" })).toEqual({ ok: false, reason: "select the nodes that should become the skill first" });
    const wf = testWorkflow({ nodes: [{ id: "in", type: "core:workflow-input", config: { name: "x" } }] });
    expect(extractSkill(wf, ["in"], testLookup, { id: "s", name: "S" }).ok).toBe(false);
  });

  it("choosing a skill sets the node's ports from the workflow interface and drops edges to ports that vanished", () => {
    const skill = testWorkflow({
      id: "sk",
      nodes: [
        { id: "i", type: "core:workflow-input", config: { name: "question", portType: "string" } },
        { id: "o", type: "core:workflow-output", config: { name: "answer", portType: "string" } },
      ],
    });
    const doc = testWorkflow({
      nodes: [
        { id: "t", type: "core:text-template" },
        { id: "s", type: "core:skill", ports: { inputs: [{ id: "old", type: "string" }], outputs: [] }, inputs: { old: "x" } },
      ],
      edges: [{ id: "t.text->s.old", source: "t", sourceHandle: "text", target: "s", targetHandle: "old" }],
    });
    const after = applyCommand(doc, setSkillCommand(doc, doc.nodes[1], skill)).doc;
    expect(after.edges).toEqual([]);
    expect(after.nodes[1].config).toEqual({ workflowId: "sk" });
    expect(after.nodes[1].inputs).toEqual({});
    expect(after.nodes[1].ports).toEqual({ inputs: [{ id: "question", type: "string", required: false, multi: false }], outputs: [{ id: "answer", type: "string", required: false, multi: false }] });
  });
});
