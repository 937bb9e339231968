import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStorage, type Storage } from "../testing/storage.ts";
import type { StoredEvent } from "./event-repository.ts";
import { tempDir } from "../testing/test-server.ts";
import { EventHub } from "./event-hub.ts";
import { StreamSubscription, type MessageSink } from "./stream-subscription.ts";
import { CatchUpPages } from "./catch-up-pages.ts";
import { MIGRATIONS } from "../schema.ts";

const opened: Storage[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

/** A sink that records each message with the `together` call it was sent in (0: outside any). */
function recordingSink(): MessageSink & { sent: Array<{ group: number; message: string }> } {
  let group = 0;
  let current = 0;
  const sent: Array<{ group: number; message: string }> = [];
  return {
    sent,
    send: (message) => (sent.push({ group: current, message }), true),
    congested: () => false,
    together: (work) => {
      current = ++group;
      try {
        return work();
      } finally {
        current = 0;
      }
    },
  };
}

const event = (seq: number): StoredEvent => ({ streamId: "s", seq, type: "node.chunk", json: `{"seq":${seq}}` });

describe("StreamSubscription", () => {
  it("sends a stored page, and then each live batch, together (one socket write per batch, not per event)", async () => {
    const storage = await openSqliteStorage(tempDir(), undefined, MIGRATIONS);
    opened.push(storage);
    await storage.events.append([event(0), event(1)]);
    const hub = new EventHub();
    const sink = recordingSink();
    const subscription = new StreamSubscription(
      "s",
      -1,
      sink,
      new CatchUpPages(storage.events, { maxChars: 1 << 20, ttlMs: 60_000 }),
      hub,
      { pageSize: 100, maxQueuedEvents: 100 },
      () => undefined,
      () => undefined,
    );
    subscription.pump();
    await Bun.sleep(20);
    await storage.events.append([event(2), event(3), event(4)]);
    hub.publish([event(2), event(3), event(4)]);
    subscription.stop();
    expect(sink.sent.map((s) => JSON.parse(s.message).event.seq)).toEqual([0, 1, 2, 3, 4]);
    const groups = sink.sent.map((s) => s.group);
    expect(groups.every((g) => g > 0)).toBe(true);
    expect(new Set(groups.slice(0, 2)).size).toBe(1);
    expect(new Set(groups.slice(2)).size).toBe(1);
    expect(groups[2]).not.toBe(groups[0]);
  });
});
