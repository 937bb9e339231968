import { describe, expect, it } from "vitest";
import { WorkflowSchema } from "@weft/types";
import { chainWorkflow } from "../testing/test-server.ts";
import { parseRunWorkflow } from "./run-workflow-snapshot.ts";

describe("parseRunWorkflow", () => {
  const snapshot = JSON.stringify(WorkflowSchema.parse(chainWorkflow("snap", 5)));

  it("answers the schema's reading of a snapshot, the second time as the first", () => {
    const first = parseRunWorkflow(snapshot);
    const second = parseRunWorkflow(snapshot);
    expect(first).toEqual(WorkflowSchema.parse(JSON.parse(snapshot)));
    expect(second).toEqual(first);
    // Each read is its own object: a caller changing one does not change the next reader's.
    expect(second).not.toBe(first);
    if (first) first.nodes[0].config.value = "changed";
    expect(parseRunWorkflow(snapshot)?.nodes[0].config.value).toBe("x");
  });

  it("checks every text it has not seen come back unchanged: a changed snapshot is refused, extra keys are dropped each time", () => {
    parseRunWorkflow(snapshot);
    const broken = snapshot.replace('"type":"core:text-template"', '"type":7');
    expect(() => parseRunWorkflow(broken)).toThrow();
    expect(() => parseRunWorkflow(broken)).toThrow();
    const extra = JSON.stringify({ ...JSON.parse(snapshot), smuggled: true });
    expect(parseRunWorkflow(extra)).not.toHaveProperty("smuggled");
    expect(parseRunWorkflow(extra)).not.toHaveProperty("smuggled");
  });

  it("reads a snapshot not kept as undefined", () => {
    expect(parseRunWorkflow("null")).toBeUndefined();
  });
});
