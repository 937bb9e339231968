import { describe, expect, it, vi } from "vitest";
import { IdIndex } from "./id-index.ts";

function indexOf(ids: string[]): { index: IdIndex; added: boolean[] } {
  const kept = new Array<string>(ids.length);
  const index = new IdIndex(ids.length, kept);
  const added = ids.map((id, i) => {
    kept[i] = id;
    return index.add(id, i);
  });
  return { index, added };
}

describe("IdIndex", () => {
  it("finds every id added, and nothing else", () => {
    const ids = Array.from({ length: 5000 }, (_, i) => `node-${i}`);
    const { index } = indexOf(ids);
    expect(index.size).toBe(5000);
    for (let i = 0; i < ids.length; i++) expect(index.get(`node-${i}`)).toBe(i);
    for (const missing of ["node-5000", "node-", "", "Node-1", "node-01"]) expect(index.get(missing)).toBeUndefined();
  });

  it("keeps the first index of a repeated id and counts distinct ids", () => {
    const { index, added } = indexOf(["a", "b", "a", "c", "b"]);
    expect(added).toEqual([true, true, false, true, false]);
    expect(index.size).toBe(3);
    expect([index.get("a"), index.get("b"), index.get("c")]).toEqual([0, 1, 3]);
  });

  it("tells apart ids that differ only in case, order or non-ASCII characters", () => {
    const ids = ["ab", "ba", "AB", "é", "e\u0301", "😀", "\u0000", "a".repeat(1000), "a".repeat(999) + "b"];
    const { index } = indexOf(ids);
    ids.forEach((id, i) => expect(index.get(id)).toBe(i));
  });

  it("finds an id next to the indexes it is given as it finds it in the table, and an id elsewhere all the same", () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `n${i}`);
    const { index } = indexOf(ids);
    for (const [id, a, b] of [
      ["n5", 5, 9],
      ["n9", 5, 9],
      ["n6", 5, 9],
      ["n10", 5, 9],
      ["n500", 5, 9],
      ["n0", 999, 998],
      ["n999", 998, 0],
    ] as const) {
      expect(index.near(id, a, b)).toBe(index.get(id));
      expect(index.near(id, a, b)).toBe(Number(id.slice(1)));
    }
    expect(index.near("n1000", 999, 999)).toBeUndefined();
    expect(index.near(undefined as unknown as string, 999, 0)).toBeUndefined();
  });

  it("finds a fan's hub and spokes beside the ends of the edge before the last without probing the table", () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `n${i}`);
    const { index } = indexOf(ids);
    const probe = vi.spyOn(index, "get");
    // Edges n0→n7, n7→n999, n0→n8: the third's source is the first's, two edges back.
    expect(index.near("n0", 7, 999, 0)).toBe(0);
    expect(index.near("n999", 8, 0, 999)).toBe(999);
    expect(probe).not.toHaveBeenCalled();
    expect(index.near("n500", 7, 999, 0)).toBe(500);
    expect(probe).toHaveBeenCalledTimes(1);
  });

  it("gives a repeated id's first index even when its repeat sits at the index it is given", () => {
    const { index } = indexOf(["a", "b", "a", "c"]);
    expect(index.near("a", 2, 3)).toBe(0);
    expect(index.near("a", 1, 1)).toBe(0);
    expect(index.near("c", 2, 2)).toBe(3);
    expect(index.near("a", 3, 3, 2)).toBe(0);
  });

  it("answers for ids that are not strings as a Map would (a malformed workflow is still reported)", () => {
    const kept: string[] = [];
    const index = new IdIndex(2, kept);
    kept[0] = 7 as unknown as string;
    expect(index.add(7 as unknown as string, 0)).toBe(true);
    expect(index.get(7 as unknown as string)).toBe(0);
    expect(index.get("7")).toBeUndefined();
    expect(index.get(undefined as unknown as string)).toBeUndefined();
  });
});
