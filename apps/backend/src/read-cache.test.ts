import { describe, expect, it } from "vitest";
import { ReadCache } from "./read-cache.ts";

/** A store whose reads are counted and answered when the test says so. */
function store(values: Record<string, number>) {
  const reads: string[][] = [];
  const read = async (keys: string[]) => {
    reads.push(keys);
    return new Map(keys.flatMap((key) => (key in values ? [[key, values[key] as number] as const] : [])));
  };
  return { values, reads, read };
}

describe("ReadCache", () => {
  it("reads only the keys it does not remember, absent ones included", async () => {
    const cache = new ReadCache<string, number>(10);
    const s = store({ a: 1, b: 2 });
    expect(await cache.getMany(["a", "x"], s.read)).toEqual(new Map([["a", 1]]));
    expect(await cache.getMany(["a", "b", "x"], s.read)).toEqual(
      new Map([
        ["a", 1],
        ["b", 2],
      ]),
    );
    expect(await cache.get("x", async () => 9)).toBeUndefined();
    expect(s.reads).toEqual([["a", "x"], ["b"]]);
  });

  it("keeps no value read before a forget: it may be older than the save", async () => {
    const cache = new ReadCache<string, number>(10);
    let answer: (value: number) => void = () => undefined;
    const reading = cache.get("a", () => new Promise<number>((resolve) => (answer = resolve)));
    cache.forget();
    answer(1);
    expect(await reading).toBe(1);
    expect(await cache.get("a", async () => 2)).toBe(2);
  });

  it("starts over past its size, and tells its listeners of a save after forgetting", async () => {
    const cache = new ReadCache<string, number>(2);
    const s = store({ a: 1, b: 2, c: 3 });
    await cache.getMany(["a", "b"], s.read);
    await cache.getMany(["c"], s.read);
    await cache.getMany(["a", "c"], s.read);
    expect(s.reads).toEqual([["a", "b"], ["c"], ["a"]]);
    const seen: number[] = [];
    cache.onSaved(async () => void seen.push((await cache.getMany(["a"], s.read)).get("a") ?? 0));
    s.values.a = 10;
    await cache.saved();
    expect(seen).toEqual([10]);
  });
});
