import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { llmStructured } from "./structured.ts";

// Against a real OpenAI-compatible server (invalid JSON first, re-asks, tool fallback): agent-runtime/src/llm/structured-node.test.ts.
describe("llm:structured", () => {
  it("refuses a schema that is not a JSON Schema, before calling any LLM", async () => {
    const failure = await expectFailure(runNode(llmStructured, { prompt: "x" }, { schema: { type: "no-such-type" } }), "INVALID_CONFIG");
    expect(failure.message).toContain("is not a valid JSON Schema");
  });

  it("needs the LLM service", async () => {
    const failure = await expectFailure(runNode(llmStructured, { prompt: "x" }), "MISSING_SERVICE");
    expect(failure.message).toContain("llm:structured needs the LLM service");
  });

  it("has the default schema's required answer field", () => {
    expect(llmStructured.spec.config.find((f) => f.id === "schema")?.default).toMatchObject({ required: ["answer"] });
  });
});
