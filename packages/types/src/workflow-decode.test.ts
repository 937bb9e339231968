import { describe, expect, it } from "vitest";
import { AnnotationSchema, WorkflowEdgeSchema, WorkflowNodeSchema, WorkflowSchema, type WorkflowInput } from "./workflow.ts";
import { canonicalWorkflow } from "./workflow-decode.ts";

/** A stored document as the server sends it (parsed, then JSON), with every key of every schema set somewhere. */
function stored(): unknown {
  const input: WorkflowInput = {
    id: "w",
    name: "W",
    description: "all of it",
    revision: 3,
    tags: ["a"],
    errorWorkflowId: "on-error",
    nodes: [
      { id: "a", type: "core:text-template", position: { x: 1, y: 2.5 }, config: { template: "{{x}}" }, inputs: { x: "1" }, label: "A", pinned: { text: "p" }, ui: { collapsed: true } },
      { id: "b", type: "core:skill", position: { x: -40, y: 0 }, policy: { onError: "route" }, ports: { inputs: [{ id: "topic", type: "string" }] } },
      { id: "c", type: "core:text-template" },
    ],
    edges: [{ id: "e", source: "a", sourceHandle: "text", target: "c", targetHandle: "x" }],
    annotations: [
      { id: "f", kind: "frame", position: { x: 0, y: 0 }, size: { width: 10, height: 20 }, text: "Frame", color: "#fff" },
      { id: "m", kind: "comment", position: { x: 5, y: 5 } },
    ],
  };
  return JSON.parse(JSON.stringify(WorkflowSchema.parse(input)));
}

/** Every path to a value inside `value`. */
function paths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== "object" || value === null) return [at];
  const inner = Object.entries(value).flatMap(([k, v]) => paths(v, [...at, Array.isArray(value) ? Number(k) : k]));
  return [at, ...inner];
}

function changed(value: unknown, path: (string | number)[], to: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if (to === DELETE) delete parent[last];
  else parent[last] = to;
  return copy;
}
const DELETE = Symbol("delete");
const REPLACEMENTS: unknown[] = [DELETE, "", " ", "a b", "x/y", "Core:x", "core:x", -1, 0, 1.5, null, true, {}, [], { extra: 1 }, "frame"];

describe("canonicalWorkflow (a stored workflow decoded without a zod walk)", () => {
  it("gives what the schema gives for a stored document, to the byte", () => {
    const doc = stored();
    const decoded = canonicalWorkflow(structuredClone(doc));
    expect(decoded).not.toBeNull();
    expect(JSON.stringify(decoded)).toBe(JSON.stringify(WorkflowSchema.parse(doc)));
  });

  it("is tested with every key of the schemas set (a key they gain must be checked by hand before it is accepted)", () => {
    const doc = stored() as { nodes: object[]; edges: object[]; annotations: object[] };
    const keys = (list: object[]) => [...new Set(list.flatMap((o) => Object.keys(o)))].sort();
    expect(Object.keys(doc).sort()).toEqual(Object.keys(WorkflowSchema.shape).sort());
    expect(keys(doc.nodes)).toEqual(Object.keys(WorkflowNodeSchema.shape).sort());
    expect(keys(doc.edges)).toEqual(Object.keys(WorkflowEdgeSchema.shape).sort());
    expect(keys(doc.annotations)).toEqual(Object.keys(AnnotationSchema.shape).sort());
  });

  it("accepts no change the schema refuses or would rewrite: every value replaced, removed or given an unknown key", () => {
    const doc = stored();
    let accepted = 0;
    let refused = 0;
    for (const path of paths(doc)) {
      const cases = path.length === 0 ? [] : REPLACEMENTS.map((to) => changed(doc, path, to));
      const at = path.reduce<unknown>((v, key) => (v as Record<string | number, unknown>)[key], doc);
      if (typeof at === "object" && at !== null && !Array.isArray(at)) cases.push(changed(doc, [...path, "unknownKey"], 1));
      for (const variant of cases) {
        const expected = WorkflowSchema.safeParse(structuredClone(variant));
        const decoded = canonicalWorkflow(variant);
        if (decoded === null) {
          refused++;
          continue;
        }
        accepted++;
        expect(expected.success, JSON.stringify(variant)).toBe(true);
        expect(JSON.stringify(decoded)).toBe(JSON.stringify(expected.data));
      }
    }
    // Both sides were exercised: changes that keep a valid stored shape (a label renamed) and changes left to the schema.
    expect(accepted).toBeGreaterThan(20);
    expect(refused).toBeGreaterThan(200);
  });

  it("leaves to the schema what it cannot take as is: a missing default, an unknown key, a broken rule", () => {
    const doc = stored() as { nodes: Record<string, unknown>[]; description?: string };
    const noConfig = structuredClone(doc);
    delete noConfig.nodes[2].config;
    expect(canonicalWorkflow(noConfig)).toBeNull();
    expect(WorkflowSchema.parse(noConfig).nodes[2].config).toEqual({});
    expect(canonicalWorkflow({ ...doc, extra: 1 })).toBeNull();
    const badId = structuredClone(doc);
    badId.nodes[0].id = "a b";
    expect(canonicalWorkflow(badId)).toBeNull();
    expect(WorkflowSchema.safeParse(badId).success).toBe(false);
  });

  it("does not change the value it is given when a node's policy or ports get their defaults", () => {
    const doc = stored() as { nodes: { policy?: Record<string, unknown> }[] };
    delete doc.nodes[1].policy!.retries;
    const before = JSON.stringify(doc);
    const decoded = canonicalWorkflow(doc);
    expect(decoded?.nodes[1].policy?.retries).toBe(0);
    expect(JSON.stringify(doc)).toBe(before);
  });
});
