import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { coalesce } from "./coalesce.ts";

describe("core:coalesce", () => {
  it("outputs the first present value and its position", async () => {
    expect(await runNode(coalesce, { values: [undefined, null, "second branch", "third"] })).toEqual({ value: "second branch", index: 2 });
    expect(await runNode(coalesce, { values: [0, 1] })).toEqual({ value: 0, index: 0 });
    expect(await runNode(coalesce, { values: [false] })).toEqual({ value: false, index: 0 });
  });
  it("runs with partial inputs, since skipped branches give it nothing", () => {
    expect(coalesce.spec.flags.acceptsPartialInputs).toBe(true);
    expect(coalesce.spec.inputs[0].multi).toBe(true);
  });
  it("fails with NO_VALUE when every candidate is empty", async () => {
    const failure = await expectFailure(runNode(coalesce, { values: [null, undefined] }), "NO_VALUE");
    expect(failure.message).toBe("None of the 2 connected values is present (all were empty, skipped or failed).");
    await expectFailure(runNode(coalesce, {}), "INVALID_INPUT");
  });
});
