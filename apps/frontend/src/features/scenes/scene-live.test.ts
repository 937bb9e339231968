import { describe, expect, it } from "vitest";
import type { AgentStepTrace, RunEvent, RunEventDraft, SceneStepView } from "@weft/types";
import { applySceneEvent, forgetCoveredStatuses, forgetRecordedSteps, newSceneLive } from "./scene-live.ts";

function stream(drafts: RunEventDraft[], from = 0): RunEvent[] {
  return drafts.map((d, i) => ({ ...d, streamId: "scene", seq: from + i, ts: 1000 + i }) as RunEvent);
}

/** Scribe's step 1 as the notice-board scene streams it: output, a skill call, its Observation. */
const scribeStep = stream([
  { type: "agent.step", agentId: "scribe", step: 1, phase: "deliberating" },
  { type: "agent.llm.output", agentId: "scribe", step: 1, text: "Posting.\n<ACTION>…</ACTION>", reasoning: "the user wants a note", runId: "delib-1" },
  { type: "agent.action.parsed", agentId: "scribe", step: 1, toolId: "post-note-skill", params: { note: "Open" }, notes: [] },
  { type: "agent.step", agentId: "scribe", step: 1, phase: "acting" },
  { type: "world.changed", path: "board.note", value: "Open", agentId: "scribe", op: "set" },
  { type: "agent.observation", agentId: "scribe", step: 1, text: "Observation: ok", ok: true, runId: "action-1" },
  { type: "agent.step", agentId: "scribe", step: 1, phase: "done" },
]);

const recorded = (instanceId: string, step: number): SceneStepView => ({ instanceId, conversationId: `c-${instanceId}`, trace: { step } as AgentStepTrace });

describe("the scene's live events folded into the view", () => {
  it("builds the step under way: output, reasoning, deliberation run, parsed action, Observation and action run", () => {
    const live = newSceneLive();
    for (const e of scribeStep) expect(applySceneEvent(live, e)).toBe(true);
    expect(live.steps).toEqual([
      {
        instanceId: "scribe",
        step: 1,
        phase: "done",
        text: "Posting.\n<ACTION>…</ACTION>",
        reasoning: "the user wants a note",
        runId: "delib-1",
        actions: [{ parse: { kind: "call", toolId: "post-note-skill", params: { note: "Open" } }, observation: { text: "Observation: ok", ok: true, runId: "action-1" } }],
      },
    ]);
    expect(live.statuses.scribe).toEqual({ status: "deliberating", seq: 3 });
  });

  it("pairs a refusal with its Observation and tracks every agent status, each with the seq that set it", () => {
    const live = newSceneLive();
    const events = stream(
      [
        { type: "agent.step", agentId: "herald", step: 4, phase: "deliberating" },
        { type: "agent.action.rejected", agentId: "herald", step: 4, code: "UNKNOWN_TOOL", message: "no tool called shout" },
        { type: "agent.observation", agentId: "herald", step: 4, text: "Observation: Error (UNKNOWN_TOOL)", ok: false },
        { type: "agent.permission.requested", agentId: "scribe", requestId: "r1", tool: "fs.write", target: "@project/a.txt" },
        { type: "agent.finished", agentId: "herald", status: "waiting_user", text: "Which city?" },
      ],
      10,
    );
    for (const e of events) applySceneEvent(live, e);
    expect(live.steps[0]?.actions).toEqual([
      { parse: { kind: "error", code: "UNKNOWN_TOOL", message: "no tool called shout" }, observation: { text: "Observation: Error (UNKNOWN_TOOL)", ok: false } },
    ]);
    // The end of an agent's loop is not the end of its deliberation in the scene: the state read tells that.
    expect(live.statuses).toEqual({ herald: { status: "deliberating", seq: 10 }, scribe: { status: "waiting_permission", seq: 13 } });

    applySceneEvent(live, stream([{ type: "agent.permission.answered", agentId: "scribe", requestId: "r1", answer: "once" }], 15)[0]!);
    expect(live.statuses.scribe).toEqual({ status: "deliberating", seq: 15 });

    // A state read covering the stream up to 14 replaces what the events up to there said.
    forgetCoveredStatuses(live, 14);
    expect(live.statuses).toEqual({ scribe: { status: "deliberating", seq: 15 } });
  });

  it("drops a step once its recorded trace is read, and does not bring it back when its events are replayed", () => {
    const live = newSceneLive();
    for (const e of scribeStep) applySceneEvent(live, e);
    applySceneEvent(live, stream([{ type: "agent.step", agentId: "scribe", step: 2, phase: "deliberating" }], 7)[0]!);
    forgetRecordedSteps(live, [recorded("scribe", 1), recorded("herald", 3)]);
    expect(live.steps.map((s) => s.step)).toEqual([2]);

    for (const e of scribeStep) applySceneEvent(live, e);
    expect(live.steps.map((s) => `${s.instanceId}:${s.step}`)).toEqual(["scribe:2"]);
  });

  it("says which events concern the scene: not the node events of a run", () => {
    const live = newSceneLive();
    const [node] = stream([{ type: "node.started", nodeId: "n", invocationId: "n#1", nodeType: "core:delay", inputs: {}, attempt: 1 }]);
    const [status] = stream([{ type: "scene.status", status: "paused" }]);
    expect(applySceneEvent(live, node!)).toBe(false);
    expect(applySceneEvent(live, status!)).toBe(true);
  });
});
