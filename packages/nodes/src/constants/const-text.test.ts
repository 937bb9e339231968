import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { constText } from "./const-text.ts";

describe("core:const-text", () => {
  it("outputs the configured text, the same every time", async () => {
    expect(await runNode(constText, {}, { value: "hello\nworld" })).toEqual({ value: "hello\nworld" });
    expect(await runNode(constText, {}, { value: "hello\nworld" })).toEqual({ value: "hello\nworld" });
    expect(constText.spec.flags.idempotent).toBe(true);
  });
  it("defaults to empty text and refuses a non-text setting", async () => {
    expect(await runNode(constText)).toEqual({ value: "" });
    await expectFailure(runNode(constText, {}, { value: 5 }), "INVALID_CONFIG");
  });
});
