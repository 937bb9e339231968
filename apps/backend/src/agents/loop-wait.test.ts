import { afterEach, describe, expect, it } from "vitest";
import { silentLogger, type RunEventDraft } from "@weft/types";
import { EventHub } from "../events/event-hub.ts";
import { EventJournal } from "../events/event-journal.ts";
import { tempDir, waitFor } from "../testing/test-server.ts";
import { openSqliteStorage, type Storage } from "../testing/storage.ts";
import { LOOP_FINISHED, waitForLoop, type LoopStopRule, type LoopWaitDeps } from "./loop-wait.ts";

/** Long enough that no poll and no deadline comes during a test: only the hub's events can end a wait. */
const HOUR = 3_600_000;
const CONVERSATION = "c1";

const opened: Storage[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

/**
 * The real SQLite storage, journal and hub; the loop itself stands in as its state (`running`) and the cancels
 * it received, as the agent host reports them. `emit` stores and publishes agent events on the conversation;
 * `readThrough` resolves once the wait has read the stored events through (it is idle until woken).
 */
async function setUp(options: { pollMs?: number } = {}) {
  const storage = await openSqliteStorage(tempDir());
  opened.push(storage);
  const hub = new EventHub();
  const journal = new EventJournal(storage, hub, { maxBatch: 64, flushMs: 1 }, silentLogger);
  await journal.open(CONVERSATION);
  const loop = { running: true, cancels: 0 };
  let emptyPages = 0;
  const deps: LoopWaitDeps = {
    agents: {
      conversation: () => Promise.resolve({ agent: { running: loop.running } }),
      cancel: () => {
        loop.cancels++;
        return Promise.resolve();
      },
    },
    storage: {
      events: {
        listAfter: async (streamId, after, limit) => {
          const page = await storage.events.listAfter(streamId, after, limit);
          if (page.length === 0) emptyPages++;
          return page;
        },
      },
    },
    hub,
    pollMs: options.pollMs ?? HOUR,
  };
  const emit = async (...events: RunEventDraft[]) => {
    for (const event of events) journal.append(CONVERSATION, event);
    await journal.flush();
  };
  const readThrough = () => waitFor(() => Promise.resolve(emptyPages > 0 || undefined), 60_000, "the wait's first read");
  return { deps, loop, emit, readThrough, lastSeq: () => storage.events.lastSeq(CONVERSATION) };
}

const finished = (text: string) => ({ type: "agent.finished" as const, agentId: "a", status: "completed", text });

describe("waitForLoop: one wait on an agent's loop, woken by the conversation's events", () => {
  it("ends on the agent.finished stored after the wait began, woken by the hub (no poll comes), not on an earlier turn's", async () => {
    const { deps, emit, readThrough, lastSeq } = await setUp();
    await emit(finished("the earlier turn"));
    const waiting = waitForLoop(deps, CONVERSATION, { afterSeq: await lastSeq(), timeoutMs: HOUR, stop: LOOP_FINISHED });
    await readThrough();
    await emit({ type: "agent.step", agentId: "a", step: 1, phase: "done" }, finished("this turn"));
    await expect(waiting).resolves.toEqual({ status: "completed", text: "this turn" });
  });

  it("a rule's caughtUp stops the wait once the stored events are read through, though the loop goes on", async () => {
    const { deps, emit, readThrough } = await setUp();
    const asked = new Set<string>();
    const question: LoopStopRule<string> = {
      types: new Set(["agent.permission.requested", "agent.permission.answered"]),
      see(event) {
        if (event.type === "agent.permission.requested") asked.add(event.requestId);
        if (event.type === "agent.permission.answered") asked.delete(event.requestId);
        return undefined;
      },
      caughtUp: () => [...asked][0],
    };
    const waiting = waitForLoop(deps, CONVERSATION, { afterSeq: -1, timeoutMs: HOUR, stop: question });
    await readThrough();
    await emit(
      { type: "agent.permission.requested", agentId: "a", requestId: "r1", tool: "shell:run" },
      { type: "agent.permission.answered", agentId: "a", requestId: "r1", answer: "once" },
      { type: "agent.permission.requested", agentId: "a", requestId: "r2", tool: "fs:write", target: "@project/a.txt" },
    );
    await expect(waiting).resolves.toBe("r2");
  });

  it("a loop no longer running that never said how it ended: SERVICE_UNAVAILABLE naming the conversation, found by the poll", async () => {
    const { deps, loop } = await setUp({ pollMs: 20 });
    const waiting = waitForLoop(deps, CONVERSATION, { afterSeq: -1, timeoutMs: HOUR, stop: LOOP_FINISHED });
    loop.running = false;
    await expect(waiting).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE", details: { conversationId: CONVERSATION } });
    expect(loop.cancels).toBe(0);
  });

  it("past its timeout the loop is cancelled and the wait rejects", async () => {
    const { deps, loop } = await setUp();
    await expect(waitForLoop(deps, CONVERSATION, { afterSeq: -1, timeoutMs: 10, stop: LOOP_FINISHED })).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    expect(loop.cancels).toBe(1);
  });

  it("an abort ends the wait; the loop is cancelled only with cancelOnAbort", async () => {
    const { deps, loop } = await setUp();
    const quiet = new AbortController();
    const left = waitForLoop(deps, CONVERSATION, { afterSeq: -1, timeoutMs: HOUR, stop: LOOP_FINISHED, signal: quiet.signal });
    quiet.abort();
    await expect(left).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    expect(loop.cancels).toBe(0);
    const gone = new AbortController();
    const cancelled = waitForLoop(deps, CONVERSATION, { afterSeq: -1, timeoutMs: HOUR, stop: LOOP_FINISHED, signal: gone.signal, cancelOnAbort: true });
    gone.abort();
    await expect(cancelled).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    expect(loop.cancels).toBe(1);
  });
});
