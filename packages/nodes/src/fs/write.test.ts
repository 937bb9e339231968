import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { fsWrite } from "./write.ts";

describe("fs:write", () => {
  it("fails with MISSING_SERVICE outside a runtime with a tool host", async () => {
    const failure = await expectFailure(runNode(fsWrite, { path: "@project/a.md", content: "x" }), "MISSING_SERVICE");
    expect(failure.message).toContain("fs:write needs the tool host");
    expect(failure.details).toEqual({ service: "toolHost" });
  });

  it("declares the result and ok outputs every tool node gives", () => {
    const outputs = fsWrite.spec.outputs.map((p) => p.id);
    expect(outputs.slice(0, 2)).toEqual(["result", "ok"]);
    expect(fsWrite.spec.flags.idempotent).toBe(false);
  });
});
