import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { fsSearch } from "./search.ts";

describe("fs:search", () => {
  it("fails with MISSING_SERVICE outside a runtime with a tool host", async () => {
    const failure = await expectFailure(runNode(fsSearch, { pattern: "x" }), "MISSING_SERVICE");
    expect(failure.message).toContain("fs:search needs the tool host");
    expect(failure.details).toEqual({ service: "toolHost" });
  });

  it("declares the result and ok outputs every tool node gives", () => {
    const outputs = fsSearch.spec.outputs.map((p) => p.id);
    expect(outputs.slice(0, 2)).toEqual(["result", "ok"]);
    expect(fsSearch.spec.flags.idempotent).toBe(false);
  });
});
