import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { constNumber } from "./const-number.ts";

describe("core:const-number", () => {
  it("outputs the configured number", async () => {
    expect(await runNode(constNumber, {}, { value: -2.5 })).toEqual({ value: -2.5 });
    expect(await runNode(constNumber)).toEqual({ value: 0 });
    expect(constNumber.spec.flags.idempotent).toBe(true);
  });
  it("refuses text and non-finite numbers", async () => {
    await expectFailure(runNode(constNumber, {}, { value: "3" }), "INVALID_CONFIG");
    await expectFailure(runNode(constNumber, {}, { value: Infinity }), "INVALID_CONFIG");
  });
});
