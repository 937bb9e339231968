import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { workflowOutput } from "./workflow-output.ts";

describe("core:workflow-output", () => {
  it("passes its value through for the engine to collect by name", async () => {
    expect(await runNode(workflowOutput, { value: { a: [1] } }, { name: "result" })).toEqual({ value: { a: [1] } });
    expect(await runNode(workflowOutput, { value: null }, { name: "result" })).toEqual({ value: null });
  });

  it("refuses a value that does not fit the declared type", async () => {
    const failure = await expectFailure(runNode(workflowOutput, { value: 3 }, { name: "summary", portType: "string" }), "INVALID_OUTPUT");
    expect(failure.message).toBe('Workflow output "summary" is declared as string but received the number 3: connect a string value or change the output\'s type.');
  });

  it("requires a connected value and a valid name", async () => {
    await expectFailure(runNode(workflowOutput, {}, { name: "x" }), "INVALID_INPUT");
    await expectFailure(runNode(workflowOutput, { value: 1 }, { name: "1x" }), "INVALID_CONFIG");
  });

  it("has no required/default settings (those belong to inputs)", () => {
    expect(workflowOutput.spec.config.map((f) => f.id)).toEqual(["name", "portType", "description"]);
    expect(workflowOutput.spec.flags.idempotent).toBe(true);
  });
});
