import { describe, expect, it } from "vitest";
import type { AgentStepTraceInput, SceneStepView } from "@weft/types";
import { AgentStepTraceSchema } from "@weft/types";
import { agentTrace } from "./scene-trace.ts";

const recorded = (input: Partial<AgentStepTraceInput> & { step: number }): SceneStepView => ({
  instanceId: "herald",
  conversationId: "c1",
  trace: AgentStepTraceSchema.parse({
    agentId: "herald",
    conversationId: "c1",
    protocol: "action-xml",
    startedAt: 1000,
    durationMs: 12,
    deliberation: { runId: `delib-${input.step}`, status: "completed", durationMs: 10 },
    output: { text: "raw", toolCalls: [] },
    responseText: "",
    actions: [],
    mistakes: { consecutive: 0, identical: 0 },
    status: "running",
    ...input,
  }),
});

describe("an agent's trace", () => {
  it("shows the recorded steps, then the ones under way, with each action's parse, run and Observation", () => {
    const steps = agentTrace(
      "herald",
      [
        recorded({
          step: 1,
          output: { text: "<ACTION>…</ACTION>", reasoning: "look first", toolCalls: [] },
          actions: [
            {
              parse: { kind: "call", toolId: "scene:world-get", toolKind: "tool", toolName: "scene_world_get", params: {}, notes: [] },
              status: "completed",
              ok: true,
              runId: "act-1",
              observation: "Observation: ok",
              startedAt: 1001,
              durationMs: 1,
            },
          ],
        }),
        recorded({
          step: 2,
          actions: [
            {
              parse: { kind: "error", code: "MALFORMED_XML", message: "unclosed tag", line: 3, column: 7 },
              status: "rejected",
              ok: false,
              observation: "Observation: Error",
              startedAt: 1002,
              durationMs: 0,
            },
          ],
        }),
        { instanceId: "scribe", conversationId: "c2", trace: recorded({ step: 9 }).trace },
      ],
      [{ instanceId: "herald", step: 3, phase: "acting", text: "calling", runId: "delib-3", actions: [{ parse: { kind: "call", toolId: "scene:world-set", params: { path: "a" } } }] }],
    );
    expect(steps.map((s) => [s.step, s.live, s.status])).toEqual([
      [1, false, "running"],
      [2, false, "running"],
      [3, true, "acting"],
    ]);
    expect(steps[0]).toMatchObject({
      deliberationRunId: "delib-1",
      reasoning: "look first",
      actions: [{ parse: { kind: "call", name: "scene_world_get", toolKind: "tool" }, runId: "act-1", observation: "Observation: ok" }],
    });
    expect(steps[1]?.actions[0]).toMatchObject({ parse: { kind: "error", code: "MALFORMED_XML", where: "line 3, column 7" }, status: "rejected" });
    expect(steps[2]).toMatchObject({ deliberationRunId: "delib-3", actions: [{ parse: { kind: "call", name: "scene:world-set" }, status: "running" }] });
  });
});
