import { describe, expect, it } from "vitest";
import type { NodeCatalog, NodeDefinition, Workflow } from "@weft/types";
import { createTestCatalog, workflow } from "../testing/test-nodes.ts";
import { CacheKey, cacheKey, keyHeads, NO_REF, volatileRef, type KeyHead } from "./cache-key.ts";
import { objectPart } from "./object-part.ts";
import { compileGraph } from "../compile-graph.ts";

const { catalog } = createTestCatalog();

/** The key of `nodeId` in `wf`, its upstream nodes' refs given by node id (NO_REF for the rest). */
function keyOf(wf: Workflow, nodeId: string, refsById: Record<string, number> = {}, defs: NodeCatalog = catalog): CacheKey {
  const compiled = compileGraph(wf, defs);
  expect(compiled.issues).toEqual([]);
  const graph = compiled.graph!;
  const refs = new Float64Array(graph.size).fill(NO_REF);
  for (const [id, ref] of Object.entries(refsById)) refs[graph.indexOf.get(id)!] = ref;
  return cacheKey(graph, graph.indexOf.get(nodeId)!, refs, undefined, undefined);
}

const same = (a: CacheKey, b: CacheKey) => a.equals(b) && a.hash === b.hash;
const differ = (a: CacheKey, b: CacheKey) => !a.equals(b) && a.hash !== b.hash;

describe("cache keys", () => {
  const add = (config: Record<string, unknown>, inputs: Record<string, unknown>) => workflow("k", [{ id: "n", type: "test:add", config, inputs: { a: 0, ...inputs } }]);

  it("are the same for the same node, config and literals, whatever the key order in objects", () => {
    const a = keyOf(add({ x: 1, y: "t" }, { b: 2 }), "n");
    expect(same(keyOf(add({ y: "t", x: 1 }, { b: 2 }), "n"), a)).toBe(true);
    expect(differ(keyOf(add({ x: 1, y: "t" }, { b: 3 }), "n"), a)).toBe(true);
    expect(differ(keyOf(add({ x: 1 }, { b: 2 }), "n"), a)).toBe(true);
    expect(objectPart({ x: 1, y: "t", z: [1, { q: 2, p: 1 }] })).toBe(objectPart({ z: [1, { p: 1, q: 2 }], y: "t", x: 1 }));
    expect(same(keyOf(add({ y: "t", x: 1, w: null }, { b: 2 }), "n"), keyOf(add({ w: null, x: 1, y: "t" }, { b: 2 }), "n"))).toBe(true);
  });

  it("of a list that reuses objects met before equal those of a fresh copy, and change with a new item", () => {
    const hello = { role: "user", content: "hello ".repeat(30) };
    const answer = { content: "hi", role: "assistant" };
    const first = objectPart({ messages: [hello] });
    const again = objectPart({ messages: [hello, answer] });
    expect(again).toBe(objectPart({ messages: [structuredClone(hello), { role: "assistant", content: "hi" }] }));
    expect(again).not.toBe(first);
    expect(objectPart({ messages: [hello, answer, { role: "user", content: "more" }] })).not.toBe(again);
  });

  it("change with the node type's version", () => {
    const def = catalog.require("test:add");
    const v2: NodeDefinition = { ...def, spec: { ...def.spec, version: def.spec.version + 1 } };
    const newer: NodeCatalog = { get: (type) => (type === "test:add" ? v2 : catalog.get(type)), list: () => catalog.list(), suggest: (type) => catalog.suggest(type) };
    expect(differ(keyOf(add({}, {}), "n"), keyOf(add({}, {}), "n", {}, newer))).toBe(true);
  });

  it("hold scalar entries as they are, nested values as JSON (long ones as their digest), and read back as text", () => {
    const key = keyOf(
      workflow(
        "k",
        [
          { id: "c", type: "test:const", config: { value: 1 } },
          { id: "n", type: "test:add", inputs: { b: 2 } },
        ],
        [["c", "value", "n", "a"]],
      ),
      "n",
      { c: 7 },
    );
    expect(key.toString()).toBe(`test:add@${catalog.require("test:add").spec.version}|{}|{"b":2}|a<value:7`);
    expect(objectPart({ b: "x", a: 1, c: undefined })).toEqual(["a", 1, "b", "x"]);
    expect(objectPart({ a: { b: 1 } })).toBe('{"a":{"b":1}}');
    const long = objectPart({ text: ["x".repeat(500)] });
    // A long nested value stands as its digest, so the key stays small.
    expect(long).toMatch(/^\{"text":#[A-Za-z0-9+/]{43}=\}$/);
    expect(objectPart({ a: { b: "y".repeat(500) }, c: "z".repeat(200) })).toHaveLength(44);
    expect(long).not.toBe(objectPart({ text: ["x".repeat(501)] }));
  });

  it("tell apart values of different types and nested values from scalars", () => {
    const keys = [{ p: 1 }, { p: "1" }, { p: true }, { p: "true" }, { p: null }, { p: "null" }, { p: 1.5 }, { p: 2 ** 40 }, { p: [1] }, { p: "[1]" }, { p: 0.1 + 0.2 }, { p: 0.3 }].map((config) =>
      keyOf(add(config, {}), "n"),
    );
    for (let x = 0; x < keys.length; x++) for (let y = x + 1; y < keys.length; y++) expect(differ(keys[x], keys[y]), `${keys[x]} vs ${keys[y]}`).toBe(true);
  });

  it("tell apart upstream refs, ports, config and literal inputs", () => {
    const wf = workflow(
      "k",
      [
        { id: "c", type: "test:const", config: { value: 1 } },
        { id: "n", type: "test:add" },
      ],
      [["c", "value", "n", "a"]],
    );
    const base = keyOf(wf, "n", { c: 7 });
    expect(same(keyOf(wf, "n", { c: 7 }), base)).toBe(true);
    expect(differ(keyOf(wf, "n", { c: 8 }), base)).toBe(true);
    expect(differ(keyOf(wf, "n", { c: 7 + 2 ** 32 }), base)).toBe(true);
    expect(differ(keyOf(wf, "n", { c: volatileRef() }), base)).toBe(true);
    const b = workflow(
      "k",
      [
        { id: "c", type: "test:const", config: { value: 1 } },
        { id: "n", type: "test:add", inputs: { a: 0 } },
      ],
      [["c", "value", "n", "b"]],
    );
    expect(differ(keyOf(b, "n", { c: 7 }), base)).toBe(true);
    // Config and literal inputs are parts of their own.
    expect(differ(keyOf(add({ b: 2 }, {}), "n"), keyOf(add({}, { b: 2 }), "n"))).toBe(true);
  });

  it("of wide fan-ins follow every ref and its place", () => {
    const fanIn = workflow(
      "wide",
      [...Array.from({ length: 40 }, (_, k) => ({ id: `c${k}`, type: "test:const", config: { value: `v${k}` } })), { id: "join", type: "test:join" }],
      Array.from({ length: 40 }, (_, k): [string, string, string, string] => [`c${k}`, "value", "join", "parts"]),
    );
    const refs = Object.fromEntries(Array.from({ length: 40 }, (_, k) => [`c${k}`, 100 + k]));
    const base = keyOf(fanIn, "join", refs);
    expect(same(keyOf(fanIn, "join", { ...refs }), base)).toBe(true);
    expect(differ(keyOf(fanIn, "join", { ...refs, c0: 101, c1: 100 }), base)).toBe(true);
    expect(differ(keyOf(fanIn, "join", { ...refs, c39: NO_REF }), base)).toBe(true);
  });

  it("are equal only when every part is, even under one hash", () => {
    // A fresh head object per key: equal heads compare by their parts, not by identity.
    const head = (node = "t@1", config = "{}", literals = "{}"): KeyHead => ({ node, config, literals, a: 0, b: 0 });
    const a = new CacheKey(1, head(), [], "a", "v", 1);
    expect(a.equals(new CacheKey(1, head(), [], "a", "v", 1))).toBe(true);
    expect(a.equals(new CacheKey(1, head(), [], "a", "v", 2))).toBe(false);
    expect(a.equals(new CacheKey(1, head(), ["a", "v", 1, "b", "v", 1]))).toBe(false);
    expect(a.equals(new CacheKey(1, head("t@2"), [], "a", "v", 1))).toBe(false);
    expect(a.equals(new CacheKey(1, head("t@1", '{"x":1}'), [], "a", "v", 1))).toBe(false);
    expect(a.equals(new CacheKey(1, head("t@1", "{}", '{"x":1}'), [], "a", "v", 1))).toBe(false);
    expect(a.equals(new CacheKey(2, head(), [], "a", "v", 1))).toBe(false);
  });

  it("are the same whether made from the heads a graph keeps from its second run on, or part by part", () => {
    const graph = compileGraph(add({ x: 1, y: "t" }, { b: 2 }), catalog).graph!;
    const i = graph.indexOf.get("n")!;
    const refs = new Float64Array(graph.size).fill(NO_REF);
    expect(keyHeads(graph)).toBeUndefined();
    const heads = keyHeads(graph)!;
    expect(keyHeads(graph)).toBe(heads);
    const kept = cacheKey(graph, i, refs, undefined, heads);
    expect(kept.head).toBe(heads[i]);
    expect(same(kept, cacheKey(graph, i, refs, undefined, undefined))).toBe(true);
  });

  it("spread over the hash space: 100,000 refs under one node give 100,000 hashes", () => {
    const wf = workflow(
      "k",
      [
        { id: "c", type: "test:const", config: { value: 1 } },
        { id: "n", type: "test:add" },
      ],
      [["c", "value", "n", "a"]],
    );
    const graph = compileGraph(wf, catalog).graph!;
    const refs = new Float64Array(graph.size);
    const hashes = new Set<number>();
    for (let ref = 0; ref < 100_000; ref++) {
      refs[graph.indexOf.get("c")!] = ref;
      const hash = cacheKey(graph, graph.indexOf.get("n")!, refs, undefined, undefined).hash;
      expect(Number.isSafeInteger(hash) && hash >= 0).toBe(true);
      hashes.add(hash);
    }
    expect(hashes.size).toBe(100_000);
  });

  it("give outputs that are not cached a ref never given before, below every cache entry's and NO_REF", () => {
    const refs = new Set(Array.from({ length: 1000 }, () => volatileRef()));
    expect(refs.size).toBe(1000);
    for (const ref of refs) {
      expect(Number.isInteger(ref)).toBe(true);
      expect(ref).toBeLessThan(NO_REF);
    }
  });
});
