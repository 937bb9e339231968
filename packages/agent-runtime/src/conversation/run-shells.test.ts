import { describe, expect, it } from "vitest";
import { RunContextSchema } from "@weft/types";
import { formatNodeBrief, formatRunDirective, formatUserInput } from "./run-shells.ts";

describe("seed 000 §5 shells", () => {
  it("write RUN_DIRECTIVE and NODE_BRIEF line by line, leaving out what is unknown", () => {
    const run = RunContextSchema.parse({
      runType: "bmad-micro",
      intent: "resume",
      workflow: "create-story",
      state: "@state/workflow.md",
      graph: "@pkg/workflow.graph.json",
      artifactsRoot: "@project/artifacts/",
      effectiveAgentId: "sm",
      autopilot: false,
      node: {
        currentNodeId: "step-01-select-story",
        stepFile: "@pkg/steps/step-01-select-story.md",
        outputsMap: [{ from: "artifacts/create-story/target.md", to: "@project/artifacts/create-story/target.md" }],
        allowedNext: [{ nodeId: "step-02-discover-inputs", label: "next" }],
      },
    });
    expect(formatRunDirective(run)).toBe(
      [
        "RUN_DIRECTIVE",
        "- runType: bmad-micro",
        "- intent: resume",
        "- workflow: create-story",
        "- state: @state/workflow.md",
        "- graph: @pkg/workflow.graph.json",
        "- artifactsRoot: @project/artifacts/",
        "- currentNodeId: step-01-select-story",
        "- effectiveAgentId: sm",
        "- autopilot: false",
      ].join("\n"),
    );
    expect(formatNodeBrief(run.node!)).toBe(
      [
        "NODE_BRIEF",
        "- currentNodeId: step-01-select-story",
        "- stepFile: @pkg/steps/step-01-select-story.md",
        "- outputsMap:",
        "  - artifacts/create-story/target.md -> @project/artifacts/create-story/target.md",
        "- allowedNext:",
        "  - step-02-discover-inputs (label=next)",
      ].join("\n"),
    );
  });

  it("binds USER_INPUT to a node only in run mode", () => {
    expect(formatUserInput("Story 3, please", "step-01")).toBe("USER_INPUT\n- forNodeId: step-01\nStory 3, please");
    expect(formatUserInput("Hello")).toBe("USER_INPUT\nHello");
  });
});
