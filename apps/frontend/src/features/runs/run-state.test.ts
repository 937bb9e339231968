// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import type { RunEvent, RunEventDraft } from "@weft/types";
import { applyRunEvent, edgeCarried, newRunView, runViewFromObservations } from "./run-state.ts";

function stream(drafts: RunEventDraft[]): RunEvent[] {
  return drafts.map((d, seq) => ({ ...d, streamId: "r1", seq, ts: 1000 + seq }) as RunEvent);
}

const events = stream([
  { type: "run.started", runId: "r1", workflowId: "wf", nodeCount: 4, inputs: { name: "Ada" } },
  { type: "node.completed", nodeId: "a", invocationId: "a#1", outputs: { text: "Hi" }, durationMs: 0, cached: true, nodeType: "core:template", inputs: { name: "Ada" } },
  { type: "node.started", nodeId: "b", invocationId: "b#1", nodeType: "core:llm", inputs: { prompt: "Hi" }, attempt: 1 },
  { type: "node.chunk", nodeId: "b", invocationId: "b#1", index: 0, chunk: "Hel" },
  { type: "node.chunk", nodeId: "b", invocationId: "b#1", index: 1, chunk: { text: "lo" } },
  { type: "node.retrying", nodeId: "b", invocationId: "b#1", attempt: 1, delayMs: 200, error: { code: "RATE_LIMIT", message: "slow down" } },
  { type: "node.started", nodeId: "b", invocationId: "b#1", nodeType: "core:llm", inputs: { prompt: "Hi" }, attempt: 2 },
  { type: "node.chunk", nodeId: "b", invocationId: "b#1", index: 0, chunk: "Hello" },
  { type: "node.failed", nodeId: "b", invocationId: "b#1", error: { code: "NODE_ERROR", message: "boom", details: { line: 3 } }, durationMs: 12 },
  { type: "node.skipped", nodeId: "c", reason: "its input prompt comes from b, which failed", causeNodeId: "b" },
  { type: "run.failed", runId: "r1", error: { code: "NODE_FAILED", message: "b failed" }, outputs: {}, durationMs: 40 },
]);

describe("run view from live events", () => {
  it("tracks every node status, streamed text, retries and the end of the run", () => {
    const view = newRunView("r1", "wf", ["a", "b", "c", "d"]);
    const seen: string[] = [];
    for (const e of events) {
      applyRunEvent(view, e);
      if (e.type === "node.chunk") seen.push(view.nodes.b.invocations[0].text);
      if (e.seq === 2) expect(view.nodes.b.status).toBe("running");
      if (e.seq === 5) expect(view.nodes.b.status).toBe("retrying");
    }
    expect(seen).toEqual(["Hel", "Hello", "Hello"]);
    expect(view.status).toBe("failed");
    expect(view.inputs).toEqual({ name: "Ada" });
    // No node.started came for it: its inputs come with its completion.
    expect(view.nodes.a).toMatchObject({ status: "cached", invocations: [{ cached: true, inputs: { name: "Ada" }, outputs: { text: "Hi" } }] });
    expect(view.nodes.b.status).toBe("failed");
    expect(view.nodes.b.invocations).toHaveLength(1);
    expect(view.nodes.b.invocations[0]).toMatchObject({ attempt: 2, error: { code: "NODE_ERROR", details: { line: 3 } }, durationMs: 12, retries: [{ attempt: 1, error: { code: "RATE_LIMIT" } }] });
    expect(view.nodes.c).toMatchObject({ status: "skipped", skipReason: "its input prompt comes from b, which failed", causeNodeId: "b" });
    expect(view.nodes.d.status).toBe("idle"); // never reached
    expect(edgeCarried(view, "a", "text")).toBe(true);
    expect(edgeCarried(view, "b", "text")).toBe(false);
  });

  it("ignores repeated events (a resumed stream) so nothing is counted twice", () => {
    const view = newRunView("r1", "wf", ["a", "b", "c", "d"]);
    for (const e of events.slice(0, 5)) applyRunEvent(view, e);
    for (const e of events) applyRunEvent(view, e);
    expect(view.nodes.b.invocations[0].text).toBe("Hello");
    expect(view.nodes.b.invocations[0].chunks).toEqual(["Hello"]);
    expect(view.lastSeq).toBe(events.length - 1);
  });

  it("a cancelled run marks running nodes cancelled", () => {
    const view = newRunView("r1", "wf", ["b", "c"]);
    for (const e of events.slice(2, 4)) applyRunEvent(view, e);
    applyRunEvent(view, { type: "run.cancelled", runId: "r1", reason: "cancelled by the user", durationMs: 5, streamId: "r1", seq: 20, ts: 0 });
    expect(view.nodes.b.status).toBe("cancelled");
    expect(view.nodes.c.status).toBe("cancelled");
    expect(view.cancelReason).toBe("cancelled by the user");
  });

  it("rebuilds a past run from its observations, with several invocations of one node", () => {
    const base = { runId: "r", nodeType: "core:add", inputs: {}, chunks: [], attempts: 1, cached: false, durationMs: 3 };
    const view = runViewFromObservations({ id: "r", workflowId: "wf", status: "completed", inputs: {}, outputs: { x: 1 } }, [
      { ...base, nodeId: "loop", invocationId: "2", status: "completed", outputs: { n: 2 }, startedAt: 20 },
      { ...base, nodeId: "loop", invocationId: "1", status: "completed", outputs: { n: 1 }, startedAt: 10, chunks: ["a", "b"] },
      { ...base, nodeId: "s", invocationId: "3", status: "skipped", outputs: {}, startedAt: 30, skipReason: "branch not taken" },
    ]);
    expect(view.nodes.loop.invocations.map((i) => i.outputs)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(view.nodes.loop.invocations[0].text).toBe("ab");
    expect(view.nodes.s).toMatchObject({ status: "skipped", skipReason: "branch not taken" });
  });
});
