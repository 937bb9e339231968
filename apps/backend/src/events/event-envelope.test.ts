import { describe, expect, it } from "vitest";
import type { RunEvent } from "@weft/types";
import { envelopeFree, withEnvelope } from "./event-envelope.ts";

const stored = (event: RunEvent) => ({ streamId: event.streamId, seq: event.seq, type: event.type, json: envelopeFree(event) });

describe("stored event envelopes", () => {
  it("leave out what the row's columns say and come back whole", () => {
    const events = [
      { type: "node.started", streamId: "r1", seq: 3, ts: 5, nodeId: 'n"1', invocationId: 'r1:n"1', nodeType: "t", inputs: { a: 1 }, attempt: 1 },
      { type: "node.chunk", streamId: "r1", seq: 4, ts: 5, nodeId: "map[0]/x", invocationId: "other", index: 0, chunk: "c" },
      { type: "scene.log", streamId: "s", seq: 0, ts: 1, nextSeq: 3 },
      { type: "run.started", streamId: "r1", seq: 0, runId: "r1", workflowId: "w", nodeCount: 1, inputs: {}, ts: 1 },
      { type: "run.started", streamId: "r1", seq: 0, runId: "r2", workflowId: "w", nodeCount: 1, inputs: {}, ts: 1 },
      { type: "node.completed", streamId: "r1", seq: 5, nodeId: "n", invocationId: "r1:n", ts: 6, outputs: { v: "}" }, durationMs: 0.5, cached: false },
      { type: "node.completed", streamId: "r1", seq: 6, nodeId: "n", invocationId: "r1:n", ts: 6, outputs: {}, durationMs: 0, cached: true },
      { type: "node.started", streamId: "r1", seq: 7, nodeId: "n", invocationId: "r1:n", ts: 7, nodeType: "t", inputs: {}, attempt: 2 },
      { type: "run.completed", streamId: "r1", seq: 8, runId: "r1" },
    ] as unknown as RunEvent[];
    for (const event of events) {
      const row = stored(event);
      expect(row.json).not.toContain('"streamId"');
      expect(JSON.parse(withEnvelope(row))).toEqual(event);
    }
    expect(stored(events[0]!).json).not.toMatch(/invocationId|attempt/);
    expect(stored(events[3]!).json).not.toContain("runId");
    expect(stored(events[4]!).json).toContain('"runId":"r2"');
    expect(stored(events[5]!).json).not.toContain("cached");
    expect(stored(events[6]!).json).toContain('"cached":true');
    expect(stored(events[7]!).json).toContain('"attempt":2');
    expect(stored(events[8]!).json).toMatch(/^\{"\$e":\d+\}$/);
    // Rows of the earlier envelope (type, stream, seq and invocation id left out only) read as they were written.
    expect(JSON.parse(withEnvelope({ streamId: "r1", seq: 3, type: "node.started", json: '{"$e":2,"nodeId":"n","ts":5,"attempt":1}' }))).toEqual({
      type: "node.started",
      streamId: "r1",
      seq: 3,
      nodeId: "n",
      invocationId: "r1:n",
      ts: 5,
      attempt: 1,
    });
    expect(JSON.parse(withEnvelope({ streamId: "s", seq: 1, type: "scene.log", json: '{"$e":1,"nextSeq":3}' }))).toEqual({ type: "scene.log", streamId: "s", seq: 1, nextSeq: 3 });
    // A marker this version does not know: the text as it is.
    expect(withEnvelope({ streamId: "s", seq: 1, type: "scene.log", json: '{"$e":64,"x":1}' })).toBe('{"$e":64,"x":1}');
    // A row stored whole (before, or by another writer) is read as it is.
    const whole = JSON.stringify(events[2]);
    expect(withEnvelope({ streamId: "s", seq: 0, type: "scene.log", json: whole })).toBe(whole);
  });
});
