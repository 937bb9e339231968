import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { fsApplyPatch } from "./apply-patch.ts";

describe("fs:apply-patch", () => {
  it("fails with MISSING_SERVICE outside a runtime with a tool host", async () => {
    const failure = await expectFailure(runNode(fsApplyPatch, { path: "@project/a.md", patch: "x" }), "MISSING_SERVICE");
    expect(failure.message).toContain("fs:apply-patch needs the tool host");
    expect(failure.details).toEqual({ service: "toolHost" });
  });

  it("declares the result and ok outputs every tool node gives", () => {
    const outputs = fsApplyPatch.spec.outputs.map((p) => p.id);
    expect(outputs.slice(0, 2)).toEqual(["result", "ok"]);
    expect(fsApplyPatch.spec.flags.idempotent).toBe(false);
  });
});
