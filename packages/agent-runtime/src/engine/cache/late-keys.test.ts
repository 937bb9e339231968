import { describe, expect, it } from "vitest";
import type { NodeValues, RunResult, Workflow } from "@weft/types";
import type { RunOptions } from "../engine-options.ts";
import { ExecutionEngine } from "../execution-engine.ts";
import { createTestCatalog, workflow } from "../testing/test-nodes.ts";
import { CacheKey, type KeyHead } from "./cache-key.ts";
import { LruOutputCache } from "./lru-output-cache.ts";
import type { CacheEntry, LateKeys, OutputCache } from "./output-cache.ts";
import { EMPTY_PART } from "./object-part.ts";

const head: KeyHead = { node: "t@1", config: EMPTY_PART, literals: EMPTY_PART, a: 0, b: 0 };
/** Node `i`'s key in the fake run below: a new object each time, as a run builds it. */
const keyOf = (i: number) => new CacheKey(1000 + i, head, [], "in", "out", i);

/** A run's keys and outputs by node, counting the keys it is asked to build. */
class FakeRun implements LateKeys {
  built = 0;
  keyOf(i: number): CacheKey {
    this.built++;
    return keyOf(i);
  }
  outputsOf(i: number): NodeValues {
    return { v: i };
  }
}

describe("entries stored before their keys (setLater)", () => {
  it("are found by a key built at once, with the ref setLater gave, and build no key until the cache is read", () => {
    const cache = new LruOutputCache(10);
    const run = new FakeRun();
    const before = cache.set(keyOf(9), { v: 9 }).ref;
    const refs = [cache.setLater(run, 0), cache.setLater(run, 1)];
    expect(run.built).toBe(0);
    expect(refs).toEqual([before + 1, before + 2]);
    expect(cache.get(keyOf(1))).toMatchObject({ outputs: { v: 1 }, ref: refs[1] });
    expect(cache.get(keyOf(0))).toMatchObject({ outputs: { v: 0 }, ref: refs[0] });
    expect(run.built).toBe(2);
    // A later set comes after them: it replaces node 0's entry, not the other way round.
    const again = cache.set(keyOf(0), { v: 10 });
    expect(cache.get(keyOf(0))).toMatchObject({ outputs: { v: 10 }, ref: again.ref });
  });

  it("wait for one run only: a cache never read keeps no earlier run's refs and outputs alive", () => {
    const cache = new LruOutputCache(3);
    const first = new FakeRun();
    const second = new FakeRun();
    cache.setLater(first, 0);
    cache.setLater(first, 1);
    expect(first.built).toBe(0);
    // Another run stores: the first run's entries are keyed and stored now.
    cache.setLater(second, 0);
    expect(first.built).toBe(2);
    cache.setLater(second, 1);
    expect(second.built).toBe(0);
    expect(cache.get(keyOf(1))).toMatchObject({ outputs: { v: 1 } });
    expect(second.built).toBe(2);
  });

  it("age as if set one by one, in the order stored", () => {
    const cache = new LruOutputCache(2);
    const run = new FakeRun();
    for (let i = 0; i < 5; i++) cache.setLater(run, i);
    // 0 and 1 filled a generation, 2 and 3 the next: 0 and 1 were dropped, 4 is the newest.
    expect(cache.size).toBe(3);
    expect(cache.get(keyOf(1))).toBeUndefined();
    expect(cache.get(keyOf(4))?.outputs).toEqual({ v: 4 });
    expect(cache.get(keyOf(2))?.outputs).toEqual({ v: 2 });
  });
});

/** An OutputCache without `setLater`: the engine builds every key at once and `set`s it. */
class KeysAtOnce implements OutputCache {
  private readonly inner = new LruOutputCache(100);
  get(key: CacheKey): CacheEntry | undefined {
    return this.inner.get(key);
  }
  set(key: CacheKey, outputs: NodeValues): CacheEntry {
    return this.inner.set(key, outputs);
  }
  get size(): number {
    return this.inner.size;
  }
}

const cachedIds = (result: RunResult) =>
  result.observations
    .filter((o) => o.cached)
    .map((o) => o.nodeId)
    .sort();

describe("keys built late in runs", () => {
  /** c → n1 → n2 → n3, and x (a twin of n1). */
  const chain = (value: number): Workflow =>
    workflow(
      "late",
      [{ id: "c", type: "test:const", config: { value } }, ...["n1", "n2", "n3", "x"].map((id) => ({ id, type: "test:add", inputs: { b: 1 } }))],
      [
        ["c", "value", "n1", "a"],
        ["n1", "sum", "n2", "a"],
        ["n2", "sum", "n3", "a"],
        ["c", "value", "x", "a"],
      ],
    );
  const runs: [Workflow, RunOptions, string[]][] = [
    [chain(1), {}, ["x"]],
    [chain(1), {}, ["c", "n1", "n2", "n3", "x"]],
    // n1, the producer of n2's input, runs again (a new entry, a new ref): what reads it runs again too.
    [chain(1), { rerunFrom: "n1" }, ["c", "x"]],
    [chain(1), {}, ["c", "n1", "n2", "n3", "x"]],
    [chain(2), {}, ["x"]],
    [chain(1), {}, ["c", "n1", "n2", "n3", "x"]],
  ];

  it("hit as keys built at once do, run after run, also after the inputs' producer ran again", async () => {
    const { catalog } = createTestCatalog();
    const late = new LruOutputCache(100);
    const atOnce = new KeysAtOnce();
    const lateEngine = new ExecutionEngine({ catalog, cache: late });
    const atOnceEngine = new ExecutionEngine({ catalog, cache: atOnce });
    for (const [wf, options, cached] of runs) {
      const a = await lateEngine.run(wf, options);
      const b = await atOnceEngine.run(wf, options);
      expect(cachedIds(a)).toEqual(cached);
      expect(cachedIds(b)).toEqual(cached);
      expect(a.observations.map((o) => o.outputs)).toEqual(b.observations.map((o) => o.outputs));
    }
    expect(late.size).toBe(atOnce.size);
  });
});
