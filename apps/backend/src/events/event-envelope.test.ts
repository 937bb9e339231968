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
    ] as unknown as RunEvent[];
    for (const event of events) {
      const row = stored(event);
      expect(row.json).not.toContain('"streamId"');
      expect(JSON.parse(withEnvelope(row))).toEqual(event);
    }
    expect(stored(events[0]!).json).not.toContain("invocationId");
    // A row stored whole (before, or by another writer) is read as it is.
    const whole = JSON.stringify(events[2]);
    expect(withEnvelope({ streamId: "s", seq: 0, type: "scene.log", json: whole })).toBe(whole);
  });
});
