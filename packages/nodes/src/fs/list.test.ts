import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { fsList } from "./list.ts";

describe("fs:list", () => {
  it("fails with MISSING_SERVICE outside a runtime with a tool host", async () => {
    const failure = await expectFailure(runNode(fsList, { path: "@project/" }), "MISSING_SERVICE");
    expect(failure.message).toContain("fs:list needs the tool host");
    expect(failure.details).toEqual({ service: "toolHost" });
  });

  it("declares the result and ok outputs every tool node gives", () => {
    const outputs = fsList.spec.outputs.map((p) => p.id);
    expect(outputs.slice(0, 2)).toEqual(["result", "ok"]);
    expect(fsList.spec.flags.idempotent).toBe(false);
  });
});
