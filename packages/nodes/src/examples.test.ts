/**
 * The example workflows in workflows/*.json are shipped to users and opened in the editor: each must
 * be a valid Workflow made of built-in nodes, wired port to fitting port, and laid out left to right.
 * (Running them is the engine's test; this one needs no engine.)
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ERROR_OUTPUT_ID,
  InterfaceNodeConfigSchema,
  SKILL_NODE_TYPE,
  WORKFLOW_INPUT_TYPE,
  WORKFLOW_OUTPUT_TYPE,
  WorkflowSchema,
  portTypeMismatch,
  workflowInterface,
  type PortSpec,
  type Workflow,
  type WorkflowNode,
} from "@weft/types";
import { createBuiltinRegistry } from "./builtins.ts";
import { checkConfig } from "./support/io-check.ts";

const DIR = join(import.meta.dirname, "../../../workflows");
const registry = createBuiltinRegistry();
const files = readdirSync(DIR)
  .filter((f) => f.endsWith(".json"))
  .sort();
const examples = new Map<string, Workflow>(files.map((f) => [f, WorkflowSchema.parse(JSON.parse(readFileSync(join(DIR, f), "utf8")))]));

/** The ports a node really has: the spec's, the node's own for dynamic ones, typed by config for interface nodes. */
function portsOf(node: WorkflowNode): { inputs: PortSpec[]; outputs: PortSpec[] } {
  const spec = registry.require(node.type).spec;
  if (spec.flags.dynamicPorts) return { inputs: node.ports?.inputs ?? [], outputs: node.ports?.outputs ?? [] };
  if (node.type !== WORKFLOW_INPUT_TYPE && node.type !== WORKFLOW_OUTPUT_TYPE) return spec;
  const type = InterfaceNodeConfigSchema.parse(node.config).portType;
  const typed = (ports: PortSpec[]) => ports.map((p) => ({ ...p, type }));
  return node.type === WORKFLOW_INPUT_TYPE ? { inputs: spec.inputs, outputs: typed(spec.outputs) } : { inputs: typed(spec.inputs), outputs: spec.outputs };
}

describe("example workflows", () => {
  it("include the documented set", () => {
    for (const name of ["text-pipeline", "branch", "fan-out-fan-in", "summarize-skill", "calls-skill", "partial-failure"]) {
      expect(files).toContain(`${name}.json`);
    }
  });

  describe.each(files)("%s", (file) => {
    const wf = examples.get(file)!;
    const byId = new Map(wf.nodes.map((n) => [n.id, n]));

    it("has the file name as id, unique node and edge ids, and a description", () => {
      expect(wf.id).toBe(file.replace(/\.json$/, ""));
      expect(byId.size).toBe(wf.nodes.length);
      expect(new Set(wf.edges.map((e) => e.id)).size).toBe(wf.edges.length);
      expect(wf.description.length).toBeGreaterThan(20);
    });

    it("uses only built-in node types, each with a valid config", () => {
      for (const node of wf.nodes) {
        const def = registry.get(node.type);
        expect(def, `node "${node.id}": unknown type ${node.type}`).toBeDefined();
        expect(() => checkConfig(def!.spec, node.config), `node "${node.id}" config`).not.toThrow();
        if (node.type === WORKFLOW_INPUT_TYPE || node.type === WORKFLOW_OUTPUT_TYPE) InterfaceNodeConfigSchema.parse(node.config);
      }
    });

    it("wires every edge from an existing output to an existing input of a fitting type", () => {
      for (const edge of wf.edges) {
        const source = byId.get(edge.source);
        const target = byId.get(edge.target);
        expect(source, `edge ${edge.id}: no node "${edge.source}"`).toBeDefined();
        expect(target, `edge ${edge.id}: no node "${edge.target}"`).toBeDefined();
        const out =
          edge.sourceHandle === ERROR_OUTPUT_ID && source!.policy?.onError === "route"
            ? ({ id: ERROR_OUTPUT_ID, type: "json" } as PortSpec)
            : portsOf(source!).outputs.find((p) => p.id === edge.sourceHandle);
        const into = portsOf(target!).inputs.find((p) => p.id === edge.targetHandle);
        expect(out, `edge ${edge.id}: "${edge.source}" has no output "${edge.sourceHandle}"`).toBeDefined();
        expect(into, `edge ${edge.id}: "${edge.target}" has no input "${edge.targetHandle}"`).toBeDefined();
        expect(portTypeMismatch(out!.type, into!.type), `edge ${edge.id}`).toBeNull();
      }
    });

    it("gives each single input at most one edge and every required input a value", () => {
      for (const node of wf.nodes) {
        const incoming = wf.edges.filter((e) => e.target === node.id);
        for (const port of portsOf(node).inputs) {
          const edges = incoming.filter((e) => e.targetHandle === port.id).length;
          if (!port.multi) expect(edges, `node "${node.id}" input "${port.id}"`).toBeLessThanOrEqual(1);
          const injected = node.type === WORKFLOW_INPUT_TYPE;
          if (port.required && !injected) {
            expect(edges > 0 || node.inputs[port.id] !== undefined || port.default !== undefined, `node "${node.id}" input "${port.id}" has no value`).toBe(true);
          }
        }
      }
    });

    it("is laid out left to right, with no two nodes on the same spot", () => {
      for (const edge of wf.edges) expect(byId.get(edge.source)!.position.x, `edge ${edge.id}`).toBeLessThan(byId.get(edge.target)!.position.x);
      const spots = wf.nodes.map((n) => `${n.position.x},${n.position.y}`);
      expect(new Set(spots).size).toBe(spots.length);
    });

    it("declares an interface with unique names", () => {
      const iface = workflowInterface(wf);
      expect(iface.outputs.length).toBeGreaterThan(0);
      for (const side of [iface.inputs, iface.outputs]) expect(new Set(side.map((p) => p.name)).size).toBe(side.length);
    });

    it("calls only example skills, with ports matching their interfaces", () => {
      for (const node of wf.nodes.filter((n) => n.type === SKILL_NODE_TYPE)) {
        const called = examples.get(`${node.config.workflowId}.json`);
        expect(called, `node "${node.id}" calls unknown workflow ${String(node.config.workflowId)}`).toBeDefined();
        const iface = workflowInterface(called!);
        const shape = (ports: { id?: string; name?: string; type: string; required: boolean }[]) => ports.map((p) => [p.id ?? p.name, p.type, p.required]);
        expect(shape(node.ports?.inputs ?? [])).toEqual(shape(iface.inputs));
        expect(shape(node.ports?.outputs ?? [])).toEqual(iface.outputs.map((p) => [p.name, p.type, false]));
      }
    });
  });
});
