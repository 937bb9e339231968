import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { ifElse } from "./if-else.ts";

describe("core:if-else", () => {
  it("produces only the `true` output when the condition holds, so the other branch is skipped", async () => {
    const out = await runNode(ifElse, { condition: true, value: { id: 7 } });
    expect(out).toEqual({ true: { id: 7 } });
    expect(Object.hasOwn(out, "false")).toBe(false);
  });
  it("produces only the `false` output otherwise", async () => {
    const out = await runNode(ifElse, { condition: "false", value: "v" });
    expect(out).toEqual({ false: "v" });
    expect(Object.hasOwn(out, "true")).toBe(false);
  });
  it("passes the condition on when no value is connected, including a null value when one is", async () => {
    expect(await runNode(ifElse, { condition: 5 })).toEqual({ true: 5 });
    expect(await runNode(ifElse, { condition: 1, value: null })).toEqual({ true: null });
  });
  it.each([[0], [""], [[]], [{}], [null], ["0"]])("routes %j to false", async (condition) => {
    expect(Object.keys(await runNode(ifElse, { condition, value: 1 }))).toEqual(["false"]);
  });
  it("requires a condition", async () => {
    await expectFailure(runNode(ifElse, { value: 1 }), "INVALID_INPUT");
  });
});
