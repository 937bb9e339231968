// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { parseWorkflowJson, workflowToJson } from "./workflow-io.ts";
import { sampleWorkflow } from "../../../shared/testing/catalog.ts";

describe("import and export", () => {
  it("round-trips a workflow and names the place a bad file is wrong", () => {
    const doc = sampleWorkflow();
    expect(parseWorkflowJson(workflowToJson(doc))).toEqual({ ok: true, workflow: doc });
    expect(parseWorkflowJson(JSON.stringify({ workflow: doc }))).toEqual({ ok: true, workflow: doc });
    const bad = parseWorkflowJson(JSON.stringify({ ...doc, nodes: [{ id: "x", type: "Not A Type" }] }), "bad.json");
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.reason).toMatch(/^bad.json is not a Weft workflow: at nodes.0.type, a node type is `namespace:name`/);
    const notJson = parseWorkflowJson("{", "x.json");
    expect(notJson.ok === false && notJson.reason.startsWith("x.json is not valid JSON")).toBe(true);
  });
});
