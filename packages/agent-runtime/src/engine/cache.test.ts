import { describe, expect, it } from "vitest";
import type { NodeValues, RunResult, Workflow } from "@weft/types";
import { ExecutionEngine } from "./execution-engine.ts";
import { freezeWorkflow } from "./frozen-workflow.ts";
import { CacheKey, LruOutputCache, type CacheEntry, type LateKeys } from "./cache/index.ts";
import { createTestCatalog, eventLog, workflow } from "./testing/test-nodes.ts";

/** a → plus → times; b → other (independent); rnd (not idempotent) → after. */
function pipeline(aValue = 1): Workflow {
  return workflow(
    "cached",
    [
      { id: "a", type: "test:const", config: { value: aValue } },
      { id: "plus", type: "test:add", inputs: { b: 10 } },
      { id: "times", type: "test:add", inputs: { b: 100 } },
      { id: "b", type: "test:const", config: { value: 5 } },
      { id: "other", type: "test:add" },
      { id: "rnd", type: "test:random" },
      { id: "after", type: "test:add" },
    ],
    [
      ["a", "value", "plus", "a"],
      ["plus", "sum", "times", "a"],
      ["b", "value", "other", "a"],
      ["rnd", "value", "after", "a"],
    ],
  );
}

const cachedIds = (result: RunResult) =>
  result.observations
    .filter((o) => o.cached)
    .map((o) => o.nodeId)
    .sort();
const executedIds = (result: RunResult) =>
  result.observations
    .filter((o) => !o.cached)
    .map((o) => o.nodeId)
    .sort();

describe("ExecutionEngine caching", () => {
  it("re-running an unchanged workflow executes no idempotent node", async () => {
    const { catalog, probe } = createTestCatalog();
    const engine = new ExecutionEngine({ catalog });
    const first = await engine.run(pipeline());
    expect(cachedIds(first)).toEqual([]);
    const log = eventLog();
    const second = await engine.run(pipeline(), { onEvent: log.onEvent });
    // rnd is not idempotent, so it and its dependent run again; everything else comes from the cache.
    expect(executedIds(second)).toEqual(["after", "rnd"]);
    expect(cachedIds(second)).toEqual(["a", "b", "other", "plus", "times"]);
    expect(probe.executions.get("plus")).toBe(1);
    expect(probe.executions.get("rnd")).toBe(2);
    expect(
      log
        .ofType("node.completed")
        .filter((e) => e.cached)
        .map((e) => e.nodeId)
        .sort(),
    ).toEqual(["a", "b", "other", "plus", "times"]);
    // Executed (not served from the cache): these synchronous nodes complete within their call, so without a node.started.
    expect(
      log
        .ofType("node.completed")
        .filter((e) => !e.cached)
        .map((e) => e.nodeId)
        .sort(),
    ).toEqual(["after", "rnd"]);
    expect(log.ofType("node.started")).toEqual([]);
    expect(second.observations.find((o) => o.nodeId === "times")?.outputs).toEqual({ sum: 111 });
  });

  it("after an edit only the changed node and what depends on it run again", async () => {
    const { catalog } = createTestCatalog();
    const engine = new ExecutionEngine({ catalog });
    await engine.run(pipeline(1));
    const edited = await engine.run(pipeline(2));
    expect(executedIds(edited)).toEqual(["a", "after", "plus", "rnd", "times"]);
    expect(cachedIds(edited)).toEqual(["b", "other"]);
    expect(edited.observations.find((o) => o.nodeId === "times")?.outputs).toEqual({ sum: 112 });
    // Changing it back finds the first version's entries still cached.
    const back = await engine.run(pipeline(1));
    expect(cachedIds(back)).toEqual(["a", "b", "other", "plus", "times"]);
  });

  it("a literal input edit invalidates the node and its dependents only", async () => {
    const { catalog } = createTestCatalog();
    const engine = new ExecutionEngine({ catalog });
    await engine.run(pipeline());
    const wf = pipeline();
    wf.nodes.find((n) => n.id === "plus")!.inputs.b = 20;
    const edited = await engine.run(wf);
    expect(cachedIds(edited)).toEqual(["a", "b", "other"]);
    expect(edited.observations.find((o) => o.nodeId === "times")?.outputs).toEqual({ sum: 121 });
  });

  it("rerunFrom forces a node and its dependents; the rest may come from the cache", async () => {
    const { catalog, probe } = createTestCatalog();
    const engine = new ExecutionEngine({ catalog });
    await engine.run(pipeline());
    const result = await engine.run(pipeline(), { rerunFrom: "plus" });
    expect(executedIds(result)).toEqual(["after", "plus", "rnd", "times"]);
    expect(probe.executions.get("plus")).toBe(2);
    const unknown = await engine.run(pipeline(), { rerunFrom: "nope" });
    expect(unknown.error).toMatchObject({ code: "INVALID_RERUN_FROM", message: expect.stringContaining('"nope"') });
  });

  it("never serves a non-idempotent node from the cache unless its policy opts in", async () => {
    const { catalog, probe } = createTestCatalog();
    const engine = new ExecutionEngine({ catalog });
    const optIn = workflow("opt-in", [
      { id: "rnd", type: "test:random", policy: { cacheable: true } },
      { id: "rnd2", type: "test:random" },
    ]);
    const first = await engine.run(optIn);
    const second = await engine.run(optIn);
    expect(cachedIds(second)).toEqual(["rnd"]);
    expect(second.observations.find((o) => o.nodeId === "rnd")?.outputs).toEqual(first.observations.find((o) => o.nodeId === "rnd")?.outputs);
    expect(probe.executions.get("rnd2")).toBe(2);
    // An idempotent node can opt out.
    const optOut = workflow("opt-out", [{ id: "c", type: "test:const", config: { value: 1 }, policy: { cacheable: false } }]);
    await engine.run(optOut);
    await engine.run(optOut);
    expect(probe.executions.get("c")).toBe(2);
  });

  it("keys interface inputs by value: a new input value runs again, the same value is cached", async () => {
    const { catalog, probe } = createTestCatalog();
    const engine = new ExecutionEngine({ catalog });
    const wf = workflow(
      "iface",
      [
        { id: "in", type: "core:workflow-input", config: { name: "text", portType: "string" } },
        { id: "up", type: "test:upper" },
      ],
      [["in", "value", "up", "text"]],
    );
    await engine.run(wf, { inputs: { text: "a" } });
    await engine.run(wf, { inputs: { text: "b" } });
    const third = await engine.run(wf, { inputs: { text: "a" } });
    expect(probe.executions.get("up")).toBe(2);
    expect(cachedIds(third)).toEqual(["in", "up"]);
  });

  it("keys a frozen workflow's nodes by their own parts, kept with its graph: the same hits and misses at every run", async () => {
    const { catalog, probe } = createTestCatalog();
    const engine = new ExecutionEngine({ catalog });
    const frozen = freezeWorkflow(pipeline());
    await engine.run(frozen);
    const second = await engine.run(frozen);
    expect(cachedIds(second)).toEqual(["a", "b", "other", "plus", "times"]);
    // An edited copy (its own graph) misses where it changed, and hits the kept graph's entries elsewhere.
    const edited = await engine.run(freezeWorkflow(pipeline(2)));
    expect(cachedIds(edited)).toEqual(["b", "other"]);
    // A second engine with a cache of its own runs the kept graph, and stores and hits in that cache.
    const other = new ExecutionEngine({ catalog });
    expect(cachedIds(await other.run(frozen))).toEqual([]);
    expect(cachedIds(await other.run(frozen))).toEqual(["a", "b", "other", "plus", "times"]);
    expect(probe.executions.get("plus")).toBe(3);
  });

  it("keys a frozen workflow's interface inputs by the value of each run, not the first run's", async () => {
    const { catalog, probe } = createTestCatalog();
    const engine = new ExecutionEngine({ catalog });
    const wf = freezeWorkflow(
      workflow(
        "iface-frozen",
        [
          { id: "in", type: "core:workflow-input", config: { name: "text", portType: "string" } },
          { id: "up", type: "test:upper" },
        ],
        [["in", "value", "up", "text"]],
      ),
    );
    await engine.run(wf, { inputs: { text: "a" } });
    const second = await engine.run(wf, { inputs: { text: "b" } });
    const third = await engine.run(wf, { inputs: { text: "a" } });
    expect(cachedIds(second)).toEqual([]);
    expect(second.observations.find((o) => o.nodeId === "up")?.outputs).toEqual({ text: "B" });
    expect(probe.executions.get("up")).toBe(2);
    expect(cachedIds(third)).toEqual(["in", "up"]);
    expect(third.observations.find((o) => o.nodeId === "up")?.outputs).toEqual({ text: "A" });
  });

  it("keeps no entries for interface nodes that no cacheable node reads (their key would hash the whole value)", async () => {
    const { catalog } = createTestCatalog();
    const cache = new KeyRecordingCache(100);
    const engine = new ExecutionEngine({ catalog, cache });
    const wf = workflow(
      "pass-through",
      [
        { id: "in", type: "core:workflow-input", config: { name: "text", portType: "string" } },
        { id: "out", type: "core:workflow-output", config: { name: "text", portType: "string" } },
      ],
      [["in", "value", "out", "value"]],
    );
    await engine.run(wf, { inputs: { text: "a" } });
    const again = await engine.run(wf, { inputs: { text: "a" } });
    expect(again.outputs).toEqual({ text: "a" });
    expect(cachedIds(again)).toEqual([]);
    expect(cache.stored).toEqual([]);
  });

  it("does not cache failures, and uses the cache it is given", async () => {
    const { catalog } = createTestCatalog();
    const cache = new LruOutputCache(100);
    const engine = new ExecutionEngine({ catalog, cache });
    await engine.run(
      workflow("w", [
        { id: "c", type: "test:const", config: { value: 1 } },
        { id: "f", type: "test:fail" },
      ]),
    );
    expect(cache.size).toBe(1);
  });
});

/** The engine's default cache, also counting the lookups it is asked for. */
class LookupCountingCache extends LruOutputCache {
  lookups = 0;
  override get(key: CacheKey): CacheEntry | undefined {
    this.lookups++;
    return super.get(key);
  }
}

describe("cache lookups", () => {
  /** c → n1 → n2 → n3, all idempotent. */
  const chain = workflow(
    "chain",
    [{ id: "c", type: "test:const", config: { value: 1 } }, ...[1, 2, 3].map((k) => ({ id: `n${k}`, type: "test:add", inputs: { b: k } }))],
    [
      ["c", "value", "n1", "a"],
      ["n1", "sum", "n2", "a"],
      ["n2", "sum", "n3", "a"],
    ],
  );

  it("skip keys built on an entry stored in this run that no stored key names yet: nothing can be under them", async () => {
    const { catalog } = createTestCatalog();
    const cache = new LookupCountingCache(100);
    const engine = new ExecutionEngine({ catalog, cache });
    const first = await engine.run(chain);
    expect(first.observations.at(-1)?.outputs).toEqual({ sum: 7 });
    // Only c was looked up: n1's key names c's new entry, n2's n1's, n3's n2's.
    expect(cache.lookups).toBe(1);
    const second = await engine.run(chain);
    expect(cache.lookups).toBe(5);
    expect(cachedIds(second)).toEqual(["c", "n1", "n2", "n3"]);
  });

  it("still serve a node from an entry an identical node stored earlier in the same run", async () => {
    const { catalog, probe } = createTestCatalog();
    const engine = new ExecutionEngine({ catalog });
    // c feeds two identical nodes: the second is served the first's entry.
    const twins = workflow(
      "twins",
      [
        { id: "c", type: "test:const", config: { value: 1 } },
        { id: "x", type: "test:add", inputs: { b: 2 } },
        { id: "y", type: "test:add", inputs: { b: 2 } },
      ],
      [
        ["c", "value", "x", "a"],
        ["c", "value", "y", "a"],
      ],
    );
    const result = await engine.run(twins);
    expect(cachedIds(result)).toEqual(["y"]);
    expect(probe.executions.get("x")).toBe(1);
    expect(probe.executions.get("y") ?? 0).toBe(0);
  });
});

/** The engine's default cache, also noting every key it is asked to store (a key stored with `setLater` built at once to be noted). */
class KeyRecordingCache extends LruOutputCache {
  readonly stored: string[] = [];
  override set(key: CacheKey, outputs: NodeValues): CacheEntry {
    this.stored.push(key.toString());
    return super.set(key, outputs);
  }
  override setLater(keys: LateKeys, i: number): number {
    this.stored.push(keys.keyOf(i).toString());
    return super.setLater(keys, i);
  }
}

describe("cache keys in runs", () => {
  const chain = (length: number, first: number) =>
    workflow(
      `chain${length}`,
      [{ id: "n0", type: "test:const", config: { value: first } }, ...Array.from({ length: length - 1 }, (_, i) => ({ id: `n${i + 1}`, type: "test:add", inputs: { b: 1 } }))],
      Array.from({ length: length - 1 }, (_, i): [string, string, string, string] => [`n${i}`, i === 0 ? "value" : "sum", `n${i + 1}`, "a"]),
    );

  it("stay short down a long chain, and change all the way down when the head changes", async () => {
    const { catalog } = createTestCatalog();
    const cache = new KeyRecordingCache(10_000);
    const engine = new ExecutionEngine({ catalog, cache });
    const first = await engine.run(chain(300, 1));
    expect(first.observations.at(-1)?.outputs).toEqual({ sum: 300 });
    expect(cache.stored).toHaveLength(300);
    expect(Math.max(...cache.stored.map((k) => k.length))).toBeLessThan(64);
    const second = await engine.run(chain(300, 2));
    expect(second.observations.filter((o) => o.cached)).toEqual([]);
    expect(second.observations.at(-1)?.outputs).toEqual({ sum: 301 });
    expect(new Set(cache.stored).size).toBe(600);
  });

  it("of a wide fan-in follow every upstream value and the order of its edges", async () => {
    const fanIn = (values: string[]) =>
      workflow(
        "wide",
        [...values.map((v, k) => ({ id: `c${k}`, type: "test:const", config: { value: v } })), { id: "join", type: "test:join" }],
        values.map((_, k): [string, string, string, string] => [`c${k}`, "value", "join", "parts"]),
      );
    const values = Array.from({ length: 40 }, (_, k) => `v${k}`);
    const { catalog, probe } = createTestCatalog();
    const engine = new ExecutionEngine({ catalog });
    await engine.run(fanIn(values));
    const again = await engine.run(fanIn(values));
    expect(executedIds(again)).toEqual([]);
    const changed = [...values];
    changed[25] = "changed";
    const third = await engine.run(fanIn(changed));
    expect(executedIds(third)).toEqual(["c25", "join"]);
    expect(third.observations.find((o) => o.nodeId === "join")?.outputs.text).toBe(changed.join(","));
    // The same values from nodes in another order: every const is cached, the join is not.
    const swapped = fanIn(values);
    swapped.edges = [swapped.edges[1], swapped.edges[0], ...swapped.edges.slice(2)];
    const fourth = await engine.run(swapped);
    expect(executedIds(fourth)).toEqual(["join"]);
    expect(probe.executions.get("join")).toBe(3);
    expect(fourth.observations.find((o) => o.nodeId === "join")?.outputs.text).toBe(["v1", "v0", ...values.slice(2)].join(","));
  });

  it("downstream of a node that is not cached never come from the cache", async () => {
    const { catalog, probe } = createTestCatalog();
    const engine = new ExecutionEngine({ catalog });
    const wf = workflow(
      "rnd",
      [
        { id: "rnd", type: "test:random" },
        { id: "after", type: "test:add", inputs: { b: 1 } },
      ],
      [["rnd", "value", "after", "a"]],
    );
    await engine.run(wf);
    await engine.run(wf);
    expect(probe.executions.get("after")).toBe(2);
  });
});

describe("LruOutputCache", () => {
  /** A key of its own per name; `hash` forces the hash, to make two keys collide. */
  const key = (name: string, hash = name.charCodeAt(0)) => new CacheKey(hash, { node: "test:key@1", config: "{}", literals: JSON.stringify({ name }), a: 0, b: 0 }, []);

  it("keeps the most recently used entries and drops the oldest", () => {
    const cache = new LruOutputCache(2);
    const a = cache.set(key("a"), { v: 1 });
    cache.set(key("b"), { v: 2 });
    expect(cache.get(key("a"))?.outputs).toEqual({ v: 1 });
    cache.set(key("c"), { v: 3 });
    cache.set(key("d"), { v: 4 });
    // a was used after b, so b went first.
    expect(cache.get(key("b"))).toBeUndefined();
    expect(cache.get(key("a"))).toMatchObject({ outputs: { v: 1 }, ref: a.ref });
    expect(cache.get(key("d"))?.outputs).toEqual({ v: 4 });
    expect(cache.size).toBeLessThanOrEqual(4);
    expect(() => new LruOutputCache(0)).toThrow(RangeError);
  });

  it("gives every new entry a ref of its own, also a new entry under a key used before", () => {
    const cache = new LruOutputCache(10);
    const refs = [cache.set(key("a"), { v: 1 }).ref, cache.set(key("b"), { v: 1 }).ref, cache.set(key("a"), { v: 2 }).ref];
    expect(new Set(refs).size).toBe(3);
    expect(cache.get(key("a"))).toMatchObject({ outputs: { v: 2 }, ref: refs[2] });
  });

  it("keeps a key as its entry, and a copy of a key stored before: an entry never changes", () => {
    const cache = new LruOutputCache(10);
    const k = key("a");
    const first = cache.set(k, { v: 1 });
    const second = cache.set(k, { v: 2 });
    expect(first).toMatchObject({ outputs: { v: 1 } });
    expect(second).toMatchObject({ outputs: { v: 2 } });
    expect(second.ref).not.toBe(first.ref);
    expect(cache.get(key("a"))).toBe(second);
  });

  it("never answers for another key with the same hash: that is a miss, and the newer key takes the place", () => {
    const cache = new LruOutputCache(10);
    cache.set(key("a", 42), { v: 1 });
    expect(cache.get(key("a", 42))?.outputs).toEqual({ v: 1 });
    expect(cache.get(key("b", 42))).toBeUndefined();
    cache.set(key("b", 42), { v: 2 });
    expect(cache.get(key("b", 42))?.outputs).toEqual({ v: 2 });
    expect(cache.get(key("a", 42))).toBeUndefined();
  });

  it("checks the key of an entry it promotes from the older generation", () => {
    const cache = new LruOutputCache(2);
    cache.set(key("a", 7), { v: 1 });
    cache.set(key("x"), { v: 0 });
    // "a" is now in the older generation; a colliding key must not promote it.
    expect(cache.get(key("b", 7))).toBeUndefined();
    expect(cache.get(key("a", 7))?.outputs).toEqual({ v: 1 });
  });
});
