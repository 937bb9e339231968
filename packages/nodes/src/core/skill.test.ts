import { describe, expect, it } from "vitest";
import { NodeFailure, type NodeValues, type Observation, type RunResult, type SubworkflowOptions } from "@weft/types";
import { expectFailure, runNode, type RunSubworkflow } from "../testing/harness.ts";
import { skill } from "./skill.ts";

/**
 * The engine that runs sub-workflows lives in agent-runtime (which depends on this package), so these
 * tests hand the node recorded RunResults; the engine's own tests run real skills end to end.
 */
function result(status: RunResult["status"], extra: Partial<RunResult> = {}): RunResult {
  return { runId: "sub-1", workflowId: "summarize-skill", status, outputs: {}, observations: [], startedAt: 0, durationMs: 1, ...extra };
}

function observation(nodeId: string, status: Observation["status"], error?: Observation["error"]): Observation {
  return {
    runId: "sub-1",
    nodeId,
    invocationId: "i",
    nodeType: "core:json-parse",
    status,
    inputs: {},
    outputs: {},
    chunks: [],
    startedAt: 0,
    durationMs: 0,
    cached: false,
    attempts: 1,
    ...(error ? { error } : {}),
  };
}

function recorder(answer: RunResult): { calls: Array<{ id: string; inputs: NodeValues; options?: SubworkflowOptions }>; run: RunSubworkflow } {
  const calls: Array<{ id: string; inputs: NodeValues; options?: SubworkflowOptions }> = [];
  return { calls, run: async (id, inputs, options) => (calls.push({ id, inputs, options }), answer) };
}

describe("core:skill", () => {
  it("runs the configured workflow with its inputs and this node's signal, and returns its outputs", async () => {
    const { calls, run } = recorder(result("completed", { outputs: { summary: "short", words: 40 } }));
    const signal = new AbortController().signal;
    const out = await runNode(skill, { text: "long text", maxWords: 5 }, { workflowId: "summarize-skill" }, { runSubworkflow: run, signal });
    expect(out).toEqual({ summary: "short", words: 40 });
    expect(calls).toEqual([{ id: "summarize-skill", inputs: { text: "long text", maxWords: 5 }, options: { signal } }]);
  });

  it("turns a failed inner node into SKILL_FAILED naming the skill and that node", async () => {
    const failed = result("failed", {
      observations: [observation("call/in", "completed"), observation("call/parse", "failed", { code: "INVALID_JSON", message: "Invalid JSON at line 1, column 2" })],
      error: { code: "NODE_FAILED", message: "1 node failed" },
    });
    const failure = await expectFailure(runNode(skill, {}, { workflowId: "summarize-skill" }, { runSubworkflow: recorder(failed).run }), "SKILL_FAILED");
    expect(failure.message).toBe('Skill "summarize-skill" failed at node "call/parse" (core:json-parse): INVALID_JSON: Invalid JSON at line 1, column 2');
    expect(failure.details).toMatchObject({ skill: "summarize-skill", nodeId: "call/parse", cause: { code: "INVALID_JSON" } });
  });

  it("keeps the sub-run's own code when the run failed as a whole, e.g. recursion", async () => {
    const recursion = result("failed", { error: { code: "SKILL_RECURSION", message: "a → b → a" } });
    const failure = await expectFailure(runNode(skill, {}, { workflowId: "a" }, { runSubworkflow: recorder(recursion).run }), "SKILL_RECURSION");
    expect(failure.message).toBe('Skill "a" failed: a → b → a');
  });

  it("reports a cancelled sub-run", async () => {
    const failure = await expectFailure(runNode(skill, {}, { workflowId: "slow" }, { runSubworkflow: recorder(result("cancelled")).run }), "SKILL_FAILED");
    expect(failure.message).toBe('Skill "slow" was cancelled');
  });

  it("wraps an error from the runtime, keeping the code of a NodeFailure such as SKILL_RECURSION", async () => {
    const broken: RunSubworkflow = async () => {
      throw new Error("workflow store offline");
    };
    expect((await expectFailure(runNode(skill, {}, { workflowId: "w" }, { runSubworkflow: broken }), "SKILL_FAILED")).message).toBe('Skill "w" could not run: workflow store offline');
    const recursion: RunSubworkflow = async () => {
      throw new NodeFailure("SKILL_RECURSION", 'workflow "w" would call itself: "w" → "w"', { chain: ["w", "w"] });
    };
    const failure = await expectFailure(runNode(skill, {}, { workflowId: "w" }, { runSubworkflow: recursion }), "SKILL_RECURSION");
    expect(failure.message).toBe('Skill "w" could not run: workflow "w" would call itself: "w" → "w"');
    expect(failure.details).toEqual({ chain: ["w", "w"], skill: "w" });
  });

  it("needs a workflow id", async () => {
    await expectFailure(runNode(skill, {}, {}), "INVALID_CONFIG");
    expect((await expectFailure(runNode(skill, {}, { workflowId: "  " }), "INVALID_CONFIG")).message).toContain("is empty");
  });

  it("takes its ports from the workflow node", () => {
    expect(skill.spec.flags.dynamicPorts).toBe(true);
    expect(skill.spec.flags.idempotent).toBe(false);
  });
});
