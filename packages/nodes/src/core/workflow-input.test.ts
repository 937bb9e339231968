import { describe, expect, it } from "vitest";
import { nodeInputsJsonSchema } from "@weft/types";
import { expectFailure, runNode } from "../testing/harness.ts";
import { workflowInput } from "./workflow-input.ts";

describe("core:workflow-input", () => {
  it("outputs the value the engine injected", async () => {
    expect(await runNode(workflowInput, { value: "weaving" }, { name: "topic", portType: "string" })).toEqual({ value: "weaving" });
  });

  it("falls back to the configured default, then to null", async () => {
    expect(await runNode(workflowInput, {}, { name: "n", portType: "integer", default: 3 })).toEqual({ value: 3 });
    expect(await runNode(workflowInput, { value: null }, { name: "n", portType: "integer", default: 3 })).toEqual({ value: 3 });
    expect(await runNode(workflowInput, {}, { name: "n" })).toEqual({ value: null });
  });

  it("converts text from a command line or an <ACTION> to the declared type", async () => {
    expect(await runNode(workflowInput, { value: "42" }, { name: "n", portType: "number" })).toEqual({ value: 42 });
    expect(await runNode(workflowInput, { value: "false" }, { name: "b", portType: "boolean" })).toEqual({ value: false });
    expect(await runNode(workflowInput, { value: "[1,2]" }, { name: "a", portType: "array" })).toEqual({ value: [1, 2] });
    expect(await runNode(workflowInput, { value: "[1,2]" }, { name: "j", portType: "json" })).toEqual({ value: "[1,2]" });
  });

  it("fails when a required input is missing, naming it", async () => {
    const failure = await expectFailure(runNode(workflowInput, {}, { name: "topic", portType: "string", required: true }), "MISSING_INPUT");
    expect(failure.message).toBe('Workflow input "topic" is required: give the run a value for "topic", or set a default on its input node.');
  });

  it("refuses a value of another type", async () => {
    const failure = await expectFailure(runNode(workflowInput, { value: "many" }, { name: "n", portType: "integer" }), "INVALID_INPUT");
    expect(failure.message).toBe('Workflow input "n" expects a value of type integer, got a string ("many").');
    await expectFailure(runNode(workflowInput, { value: 1.5 }, { name: "n", portType: "integer" }), "INVALID_INPUT");
  });

  it("refuses a config whose name is not an identifier", async () => {
    const failure = await expectFailure(runNode(workflowInput, { value: 1 }, { name: "my topic" }), "INVALID_CONFIG");
    expect(failure.message).toContain('Setting "name" of core:workflow-input is invalid');
    await expectFailure(runNode(workflowInput, { value: 1 }, {}), "INVALID_CONFIG");
  });

  it("is an idempotent interface node whose only input is the injected value", () => {
    expect(workflowInput.spec.flags.idempotent).toBe(true);
    expect(workflowInput.spec.category).toBe("interface");
    expect(Object.keys(nodeInputsJsonSchema(workflowInput.spec).properties as object)).toEqual(["value"]);
  });
});
