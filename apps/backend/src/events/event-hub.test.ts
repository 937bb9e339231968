import { describe, expect, it } from "vitest";
import { EventHub } from "./event-hub.ts";
import type { StoredEvent } from "./event-repository.ts";

const event = (streamId: string, seq: number, type: string): StoredEvent => ({ streamId, seq, type, json: "{}" });

describe("EventHub subscriptions", () => {
  it("a stream's listeners get its batches; the ending listeners only its run's last event; each unsubscribe leaves nothing behind", () => {
    const hub = new EventHub();
    const batches: number[][] = [];
    const endings: number[] = [];
    const stopA = hub.subscribe("r1", (events) => batches.push(events.map((e) => e.seq)));
    const stopB = hub.subscribe("r1", () => undefined);
    const stopEnd = hub.subscribeEnding("r1", (e) => endings.push(e.seq));
    expect([hub.listenerCount("r1"), hub.endingListenerCount("r1")]).toEqual([2, 1]);
    hub.publish([event("r1", 0, "run.started"), event("r2", 0, "run.started"), event("r1", 1, "run.completed")]);
    expect(batches).toEqual([[0, 1]]);
    expect(endings).toEqual([1]);
    stopA();
    stopA();
    expect(hub.listenerCount("r1")).toBe(1);
    stopB();
    stopEnd();
    expect([hub.listenerCount("r1"), hub.endingListenerCount("r1")]).toEqual([0, 0]);
    hub.publish([event("r1", 2, "run.failed")]);
    expect(batches).toHaveLength(1);
    expect(endings).toEqual([1]);
  });
});
