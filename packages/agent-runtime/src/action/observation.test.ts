import { describe, expect, it } from "vitest";
import { fixtureManifest } from "./test-support.ts";
import { formatObservation } from "./observation.ts";
import { parseAction } from "./parser/parse-action.ts";

describe("formatObservation", () => {
  it("shows a small result in full, as compact JSON, with the call's repair notes", () => {
    expect(formatObservation({ kind: "success", toolName: "math_add", outputs: { sum: 3, parts: [1, 2] }, notes: ["The tag was written <action>; it is <ACTION> (accepted)."] })).toBe(
      'Observation: Tool `math_add` executed successfully. Result: {"sum":3,"parts":[1,2]}\nNote: The tag was written <action>; it is <ACTION> (accepted).',
    );
  });

  it("cuts a large result to a preview and says where the full result is kept", () => {
    const outputs = { text: "x".repeat(10_000) };
    const kept = formatObservation({ kind: "success", toolName: "fs_read_one", outputs }, { maxChars: 100, fullResultRef: "@state/results/step-3.json" });
    expect(kept).toContain('Result (first 100 of 10011 characters): {"text":"xxxx');
    expect(kept).toContain("[The result was truncated. The full result is kept at @state/results/step-3.json; read it if you need more.]");
    expect(kept.length).toBeLessThan(400);
    const lost = formatObservation({ kind: "success", toolName: "fs_read_one", outputs }, { maxChars: 100 });
    expect(lost).toContain("[The result was truncated; the full result was not kept.]");
  });

  it("never splits an emoji when cutting", () => {
    const text = formatObservation({ kind: "success", toolName: "t", outputs: { e: "😀".repeat(100) } }, { maxChars: 8 });
    expect(text).toContain('{"e":"😀…');
    expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it("survives outputs JSON cannot represent", () => {
    const cyclic: Record<string, unknown> = { n: 1n };
    cyclic.self = cyclic;
    expect(formatObservation({ kind: "success", toolName: "t", outputs: cyclic })).toBe('Observation: Tool `t` executed successfully. Result: {"n":"1","self":"[circular]"}');
  });

  it("reports a run failure and a cancellation with their code", () => {
    expect(formatObservation({ kind: "failure", toolName: "fs_read_one", error: { code: "NOT_FOUND", message: "no such file: a.ts" } })).toBe(
      "Observation: Error - Tool `fs_read_one` failed [NOT_FOUND]: no such file: a.ts",
    );
    expect(formatObservation({ kind: "failure", toolName: "t", status: "cancelled", error: { code: "CANCELLED", message: "stopped" } })).toBe(
      "Observation: Error - Tool `t` was cancelled [CANCELLED]: stopped",
    );
  });

  it("passes a parse error's message to the model with its code", () => {
    const r = parseAction("<ACTION><clock_now/><clock_now/></ACTION>", fixtureManifest());
    if (r.kind !== "error") throw new Error("expected an error");
    expect(formatObservation(r)).toBe(`Observation: Error (MULTIPLE_TOOLS) - ${r.message}`);
  });
});
