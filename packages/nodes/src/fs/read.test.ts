import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { fsRead } from "./read.ts";

describe("fs:read", () => {
  it("fails with MISSING_SERVICE outside a runtime with a tool host", async () => {
    const failure = await expectFailure(runNode(fsRead, { path: "@project/a.md" }), "MISSING_SERVICE");
    expect(failure.message).toContain("fs:read needs the tool host");
    expect(failure.details).toEqual({ service: "toolHost" });
  });

  it("declares the result and ok outputs every tool node gives", () => {
    const outputs = fsRead.spec.outputs.map((p) => p.id);
    expect(outputs.slice(0, 2)).toEqual(["result", "ok"]);
    expect(fsRead.spec.flags.idempotent).toBe(false);
  });
});
