import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { switchNode } from "./switch.ts";

const config = { case1: "small", case2: "large", case3: "42" };

describe("core:switch", () => {
  it("routes the value to the case whose name equals the key, and produces nothing else", async () => {
    expect(await runNode(switchNode, { key: "large", value: "payload" }, config)).toEqual({ case2: "payload" });
  });
  it("compares non-text keys as their JSON text", async () => {
    expect(await runNode(switchNode, { key: 42 }, config)).toEqual({ case3: 42 });
  });
  it("uses default when no case matches; empty case names never match", async () => {
    expect(await runNode(switchNode, { key: "medium", value: 1 }, config)).toEqual({ default: 1 });
    expect(await runNode(switchNode, { key: "" }, config)).toEqual({ default: "" });
  });
  it("takes the first case when two have the same name", async () => {
    expect(await runNode(switchNode, { key: "x" }, { case2: "x", case4: "x" })).toEqual({ case2: "x" });
  });
  it("declares four cases and a default as outputs", () => {
    expect(switchNode.spec.outputs.map((p) => p.id)).toEqual(["case1", "case2", "case3", "case4", "default"]);
  });
  it("requires a key and text case names", async () => {
    await expectFailure(runNode(switchNode, {}, config), "INVALID_INPUT");
    await expectFailure(runNode(switchNode, { key: 1 }, { case1: 1 }), "INVALID_CONFIG");
  });
});
