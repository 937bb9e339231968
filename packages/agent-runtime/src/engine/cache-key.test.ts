import { describe, expect, it } from "vitest";
import type { NodeDefinition } from "@weft/types";
import { createTestCatalog } from "./testing/test-nodes.ts";
import { edgeKeyPart, finishKey, NO_REF, staticKeyPart, volatileRef, wideEdgesKeyPart } from "./cache-key.ts";

describe("cache keys", () => {
  const add = createTestCatalog().catalog.require("test:add");
  const addV2: NodeDefinition = { ...add, spec: { ...add.spec, version: add.spec.version + 1 } };
  it("are the same for the same node, config and literals, whatever the key order in objects", () => {
    const a = staticKeyPart(add, { x: 1, y: "t" }, { b: 2 });
    expect(staticKeyPart(add, { y: "t", x: 1 }, { b: 2 })).toBe(a);
    expect(staticKeyPart(addV2, { x: 1, y: "t" }, { b: 2 })).not.toBe(a);
    expect(staticKeyPart(add, { x: 1, y: "t" }, { b: 3 })).not.toBe(a);
    expect(staticKeyPart(add, { x: 1, y: "t", z: [1, { q: 2, p: 1 }] }, {})).toBe(staticKeyPart(add, { z: [1, { p: 1, q: 2 }], y: "t", x: 1 }, {}));
  });

  it("keep short material as it is and hash long material to a fixed size", () => {
    const short = finishKey(staticKeyPart(add, {}, {}) + edgeKeyPart("a", "sum", 7));
    expect(short).toBe(`test:add@${add.spec.version}|{}|{}|a<sum:7`);
    const long = finishKey(staticKeyPart(add, { text: "x".repeat(500) }, {}));
    expect(long).toHaveLength(44);
    // Plain material always holds a `|` and a hash never does, so the two cannot collide.
    expect(long).not.toContain("|");
  });

  it("give outputs that are not cached a ref never given before, below every cache entry's and NO_REF", () => {
    const refs = new Set(Array.from({ length: 1000 }, () => volatileRef()));
    expect(refs.size).toBe(1000);
    for (const ref of refs) {
      expect(Number.isInteger(ref)).toBe(true);
      expect(ref).toBeLessThan(NO_REF);
    }
  });

  it("of wide fan-ins count runs of equal edge labels and tell apart refs, their order and the labels", () => {
    const ports = ["xs", "xs", "xs", "b"];
    const handles = ["y", "y", "y", "y"];
    const part = wideEdgesKeyPart(ports, handles, 0, 4, new Float64Array([1, 2, 3, 4]));
    expect(part).toMatch(/^\|xs<y\*3\|b<y\*1#[A-Za-z0-9+/=]{44}$/);
    expect(wideEdgesKeyPart(ports, handles, 0, 4, new Float64Array([1, 2, 3, 4]))).toBe(part);
    expect(wideEdgesKeyPart(ports, handles, 0, 4, new Float64Array([2, 1, 3, 4]))).not.toBe(part);
    expect(wideEdgesKeyPart(ports, handles, 0, 4, new Float64Array([1, 2, 3, NO_REF]))).not.toBe(part);
    expect(wideEdgesKeyPart(["xs", "xs", "b", "b"], handles, 0, 4, new Float64Array([1, 2, 3, 4]))).not.toBe(part);
    // Only the edges in range count.
    expect(wideEdgesKeyPart(["q", ...ports], ["q", ...handles], 1, 5, new Float64Array([1, 2, 3, 4]))).toBe(part);
  });
});
