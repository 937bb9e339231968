import { describe, expect, it } from "vitest";
import { progressMessage } from "./run-progress.ts";

const at = { streamId: "r1", seq: 3, ts: 0, nodeId: "llm", invocationId: "i1" };

describe("a run event as a progress message", () => {
  it("gives a streamed chunk as its text, a structured one as JSON, and cuts a long one", () => {
    expect(progressMessage({ ...at, type: "node.chunk", index: 0, chunk: "Once upon" })).toBe("Once upon");
    expect(progressMessage({ ...at, type: "node.chunk", index: 1, chunk: { delta: "a time" } })).toBe('{"delta":"a time"}');
    const long = progressMessage({ ...at, type: "node.chunk", index: 2, chunk: "x".repeat(5_000) });
    expect(long?.length).toBe(2_001);
    expect(long?.endsWith("…")).toBe(true);
  });

  it("names a failed node's error, a retry's attempt, and passes over events that are no node's progress", () => {
    expect(progressMessage({ ...at, type: "node.failed", error: { code: "E_TIMEOUT", message: "took too long" }, durationMs: 5 })).toBe("node llm failed (E_TIMEOUT): took too long");
    expect(progressMessage({ ...at, type: "node.started", nodeType: "llm:chat", inputs: {}, attempt: 2 })).toBe("node llm (llm:chat) started (attempt 2)");
    expect(progressMessage({ streamId: "r1", seq: 0, ts: 0, type: "run.started", runId: "r1", workflowId: "w", nodeCount: 1, inputs: {} })).toBeUndefined();
  });
});
