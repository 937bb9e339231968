import { describe, expect, it } from "vitest";
import { ExecutionEngine } from "./execution-engine.ts";
import { DEFAULT_MAX_OUTPUT_BYTES, jsonSizeUpTo } from "./output-size.ts";
import { createTestCatalog, eventLog, workflow } from "./testing/test-nodes.ts";

const MB = 1024 * 1024;

function bigConst(value: unknown) {
  return workflow(
    "big",
    [
      { id: "big", type: "test:const", config: { value } },
      { id: "out", type: "core:workflow-output", config: { name: "result" } },
    ],
    [["big", "value", "out", "value"]],
  );
}

describe("the output cap per node", () => {
  it("a node returning more than the default 8 MB fails with OUTPUT_TOO_LARGE: no completed event, no outputs kept, its dependents skipped", async () => {
    const { catalog } = createTestCatalog();
    const log = eventLog();
    const engine = new ExecutionEngine({ catalog });
    const result = await engine.run(bigConst("x".repeat(9 * MB)), { onEvent: log.onEvent });
    expect(result.status).toBe("failed");
    const failed = log.ofType("node.failed");
    expect(failed.map((e) => [e.nodeId, e.error.code])).toEqual([["big", "OUTPUT_TOO_LARGE"]]);
    expect(failed[0].error.message).toContain("about 9 MB, over the cap of 8 MB per node");
    expect(failed[0].error.message).toContain("WEFT_MAX_OUTPUT_BYTES");
    expect(failed[0].error.details).toMatchObject({ limitBytes: DEFAULT_MAX_OUTPUT_BYTES });
    expect(log.ofType("node.completed").map((e) => e.nodeId)).toEqual([]);
    expect(log.ofType("node.skipped").map((e) => e.nodeId)).toEqual(["out"]);
    const big = result.observations.find((o) => o.nodeId === "big");
    expect(big?.outputs).toEqual({});
    expect(result.outputs).toEqual({});
    // Not cached either: the same run again fails the same way instead of completing from the cache.
    const again = eventLog();
    await engine.run(bigConst("x".repeat(9 * MB)), { onEvent: again.onEvent });
    expect(again.ofType("node.failed").map((e) => e.error.code)).toEqual(["OUTPUT_TOO_LARGE"]);
  });

  it("counts UTF-8 bytes and nested values, and lets outputs under the cap through", async () => {
    const { catalog } = createTestCatalog();
    const engine = new ExecutionEngine({ catalog, maxOutputBytes: 64 * 1024 });
    // 30,000 characters of three bytes each: 90 KB as UTF-8, 30 K as string length.
    const wide = await engine.run(bigConst({ deep: [{ text: "€".repeat(30_000) }] }));
    expect(wide.observations.find((o) => o.nodeId === "big")?.error?.code).toBe("OUTPUT_TOO_LARGE");
    const fits = await engine.run(bigConst({ deep: [{ text: "e".repeat(30_000) }] }));
    expect(fits.status).toBe("completed");
    expect((fits.outputs.result as { deep: Array<{ text: string }> }).deep[0].text).toHaveLength(30_000);
  });

  it("streamed chunks count towards the cap: the stream is stopped once they pass it", async () => {
    const { catalog } = createTestCatalog();
    const log = eventLog();
    const words = Array.from({ length: 40 }, () => "w".repeat(100)).join(" ");
    const doc = workflow("stream", [{ id: "s", type: "test:stream", inputs: { text: words } }]);
    const result = await new ExecutionEngine({ catalog, maxOutputBytes: 1000 }).run(doc, { onEvent: log.onEvent });
    expect(result.status).toBe("failed");
    expect(log.ofType("node.failed").map((e) => e.error.code)).toEqual(["OUTPUT_TOO_LARGE"]);
    expect(log.ofType("node.chunk").length).toBeLessThan(10);
  });

  it("measures without walking past the limit", () => {
    expect(jsonSizeUpTo({ a: "x".repeat(10) }, 1000)).toBeLessThan(30);
    expect(
      jsonSizeUpTo(
        Array.from({ length: 1_000_000 }, () => 1),
        100,
      ),
    ).toBeLessThan(200);
  });

  it("refuses a cap that is not a positive integer", () => {
    const { catalog } = createTestCatalog();
    expect(() => new ExecutionEngine({ catalog, maxOutputBytes: 0 })).toThrow(/maxOutputBytes must be a positive integer/);
  });
});
