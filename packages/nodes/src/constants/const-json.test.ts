import { describe, expect, it } from "vitest";
import { runNode } from "../testing/harness.ts";
import { constJson } from "./const-json.ts";

describe("core:const-json", () => {
  it("outputs the configured value, defaulting to null", async () => {
    expect(await runNode(constJson, {}, { value: { a: [1, "b"] } })).toEqual({ value: { a: [1, "b"] } });
    expect(await runNode(constJson, {}, { value: null })).toEqual({ value: null });
    expect(await runNode(constJson)).toEqual({ value: null });
  });
  it("gives a fresh copy each run, so mutating the output cannot change the setting", async () => {
    const config = { value: { list: [1] } };
    const first = (await runNode(constJson, {}, config)).value as { list: number[] };
    first.list.push(2);
    expect(await runNode(constJson, {}, config)).toEqual({ value: { list: [1] } });
    expect(constJson.spec.flags.idempotent).toBe(true);
  });
});
