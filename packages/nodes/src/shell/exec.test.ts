import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { shellExec } from "./exec.ts";

describe("shell:exec", () => {
  it("fails with MISSING_SERVICE outside a runtime with a tool host", async () => {
    const failure = await expectFailure(runNode(shellExec, { command: "ls" }), "MISSING_SERVICE");
    expect(failure.message).toContain("shell:exec needs the tool host");
    expect(failure.details).toEqual({ service: "toolHost" });
  });

  it("declares the result and ok outputs every tool node gives", () => {
    const outputs = shellExec.spec.outputs.map((p) => p.id);
    expect(outputs.slice(0, 2)).toEqual(["result", "ok"]);
    expect(shellExec.spec.flags.idempotent).toBe(false);
  });
});
