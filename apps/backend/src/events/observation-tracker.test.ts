import { describe, expect, it } from "vitest";
import type { Observation, RunEvent, RunEventDraft } from "@weft/types";
import { ObservationTracker } from "./observation-tracker.ts";

const stream = (drafts: RunEventDraft[]): RunEvent[] => drafts.map((d, seq) => ({ ...d, streamId: "r1", seq, ts: 1000 + seq }) as RunEvent);

describe("ObservationTracker", () => {
  it("observes nodes announced by their completion alone (completed within their call, or cached) as well as started ones", () => {
    const made: Array<[number, Observation]> = [];
    const tracker = new ObservationTracker("r1", (ord, observation) => made.push([ord, observation]));
    for (const event of stream([
      { type: "run.started", runId: "r1", workflowId: "wf", nodeCount: 4, inputs: { q: "hi" } },
      { type: "node.completed", nodeId: "in", invocationId: "r1:in", outputs: { value: "hi" }, durationMs: 0.5, cached: false, nodeType: "core:workflow-input", inputs: {} },
      { type: "node.started", nodeId: "llm", invocationId: "r1:llm", nodeType: "llm:chat", inputs: { prompt: "hi" }, attempt: 1 },
      { type: "node.chunk", nodeId: "llm", invocationId: "r1:llm", index: 0, chunk: "Hel" },
      { type: "node.completed", nodeId: "t", invocationId: "r1:t", outputs: { text: "x" }, durationMs: 0, cached: true, nodeType: "text:template", inputs: { name: "Ada" } },
      { type: "node.completed", nodeId: "llm", invocationId: "r1:llm", outputs: { text: "Hello" }, durationMs: 4, cached: false },
      // A completion without a start nor what one would say (an older event) is not made up.
      { type: "node.completed", nodeId: "old", invocationId: "r1:old", outputs: {}, durationMs: 0, cached: true },
    ]))
      tracker.onEvent(event);
    expect(made.map(([ord, o]) => [ord, o.nodeId, o.nodeType, o.status, o.inputs, o.outputs, o.chunks, o.cached, o.attempts])).toEqual([
      [0, "in", "core:workflow-input", "completed", {}, { value: "hi" }, [], false, 1],
      [2, "t", "text:template", "completed", { name: "Ada" }, { text: "x" }, [], true, 0],
      [1, "llm", "llm:chat", "completed", { prompt: "hi" }, { text: "Hello" }, ["Hel"], false, 1],
    ]);
    // Its start is its completion's time less its duration.
    expect(made[0]![1].startedAt).toBe(1001 - 0.5);
  });
});
