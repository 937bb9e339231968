import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { constBoolean } from "./const-boolean.ts";

describe("core:const-boolean", () => {
  it("outputs the configured boolean", async () => {
    expect(await runNode(constBoolean, {}, { value: true })).toEqual({ value: true });
    expect(await runNode(constBoolean)).toEqual({ value: false });
    expect(constBoolean.spec.flags.idempotent).toBe(true);
  });
  it("refuses anything but true or false", async () => {
    const failure = await expectFailure(runNode(constBoolean, {}, { value: "true" }), "INVALID_CONFIG");
    expect(failure.message).toBe('Setting "value" of core:const-boolean must be true or false, got a string ("true").');
  });
});
