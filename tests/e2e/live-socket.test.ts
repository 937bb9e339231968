import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { poll } from "./support/poll.ts";
import { ownerWebSocket } from "./support/as-owner.ts";
import { startTcpProxy, type TcpProxy } from "./support/tcp-proxy.ts";
import { useServedApi } from "./support/served-api.ts";
import { WorkflowSchema, type RunEvent } from "../../packages/types/src/index.ts";
import { LiveSocket, type SocketStatus } from "../../apps/frontend/src/shared/live/live-socket.ts";

const served = useServedApi(async ({ client }) => {
  // Six waits in a row: a run long enough to drop the connection in its middle.
  const nodes = Array.from({ length: 6 }, (_, i) => ({ id: `d${i}`, type: "core:delay", inputs: i === 0 ? { value: "x", ms: 120 } : { ms: 120 } }));
  const edges = nodes.slice(1).map((n, i) => ({ id: `e${i}`, source: `d${i}`, sourceHandle: "value", target: n.id, targetHandle: "value" }));
  const created = await client.createWorkflow(WorkflowSchema.parse({ id: "waits", name: "Waits", nodes, edges }));
  if (!created.ok) throw new Error(created.error.message);
});

function socketFor(statuses: SocketStatus[] = [], options: { baseUrl?: string; connectTimeoutMs?: number } = {}) {
  return new LiveSocket({
    url: (options.baseUrl ?? served.server.url).replace("http", "ws") + "/ws",
    fetchEvents: (id, after) => served.client.runEvents(id, after),
    WebSocketImpl: ownerWebSocket(served.server.accessToken),
    onStatus: (s) => statuses.push(s),
    reconnectDelaysMs: [50],
    ...(options.connectTimeoutMs !== undefined ? { connectTimeoutMs: options.connectTimeoutMs } : {}),
  });
}

/** Every event of a run through `socket`, from the start until `run.completed`; checked against what is stored: none lost, none twice. */
async function followToEnd(socket: LiveSocket, runId: string): Promise<RunEvent[]> {
  const seen: RunEvent[] = [];
  socket.subscribe(runId, -1, (event) => seen.push(event));
  await poll(() => seen.at(-1)?.type, { timeout: 30_000 }).toBe("run.completed");
  socket.close();
  const stored = await served.client.runEvents(runId, -1);
  expect(stored.ok && stored.value.map((e) => `${e.seq}:${e.type}`)).toEqual(seen.map((e) => `${e.seq}:${e.type}`));
  return seen;
}

async function startRun(): Promise<string> {
  const started = await served.client.startRun("waits", {});
  if (!started.ok) throw new Error(started.error.message);
  return started.value.runId;
}

describe("LiveSocket against the real /ws", () => {
  it("loses and repeats nothing when the connection drops in the middle of a run", async () => {
    const statuses: SocketStatus[] = [];
    const socket = socketFor(statuses);
    const runId = await startRun();
    const seen: RunEvent[] = [];
    let dropped = false;
    socket.subscribe(runId, -1, (event) => {
      seen.push(event);
      if (!dropped && event.type === "node.completed") {
        dropped = true;
        socket.dropConnection();
      }
    });
    await poll(() => seen.at(-1)?.type, { timeout: 15_000 }).toBe("run.completed");
    socket.close();

    expect(dropped).toBe(true);
    expect(statuses.filter((s) => s === "open").length).toBeGreaterThanOrEqual(2); // it reconnected
    expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i));
    const stored = await served.client.runEvents(runId, -1);
    expect(stored.ok && stored.value.map((e) => `${e.seq}:${e.type}`)).toEqual(seen.map((e) => `${e.seq}:${e.type}`));
    expect(seen.filter((e) => e.type === "node.completed")).toHaveLength(6);
  });

  it("resumes after the last event it saw, and replays a finished run from the start", async () => {
    const runId = await startRun();
    const first = socketFor();
    const head: RunEvent[] = [];
    const stop = first.subscribe(runId, -1, (e) => head.push(e));
    await poll(() => head.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    stop();
    first.close();
    const after = head.at(-1)!.seq;

    const second = socketFor();
    const tail: RunEvent[] = [];
    second.subscribe(runId, after, (e) => tail.push(e));
    await poll(() => tail.at(-1)?.type, { timeout: 15_000 }).toBe("run.completed");
    second.close();
    expect(tail[0].seq).toBe(after + 1);
    expect([...head, ...tail].map((e) => e.seq)).toEqual([...head, ...tail].map((_, i) => i));

    const replay = socketFor();
    const all: RunEvent[] = [];
    replay.subscribe(runId, -1, (e) => all.push(e));
    await poll(() => all.at(-1)?.type, { timeout: 10_000 }).toBe("run.completed");
    replay.close();
    expect(all.map((e) => e.seq)).toEqual([...head, ...tail].map((e) => e.seq));
  });

  describe("when the network misbehaves", () => {
    let proxy: TcpProxy;
    beforeEach(async () => {
      proxy = await startTcpProxy(served.server.port);
    });
    afterEach(async () => {
      await proxy.stop();
    });

    it("gives up a handshake that never comes back and connects again, even when each one is slower than its first limit", async () => {
      // Every handshake is held a while, longer than the first attempts' limit: an attempt given up must not stop
      // the next one from waiting longer (a loaded machine answers late, not never). The first is never answered.
      proxy.setMode((i) => (i === 0 ? { kind: "hold" } : { kind: "pass", delayMs: 400 }));
      const statuses: SocketStatus[] = [];
      const socket = socketFor(statuses, { baseUrl: proxy.url, connectTimeoutMs: 100 });
      const runId = await startRun();
      const seen = await followToEnd(socket, runId);
      expect(statuses).toContain("open");
      expect(proxy.accepted).toBeGreaterThan(1); // the first, held attempt was given up for another
      expect(seen.filter((e) => e.type === "node.completed")).toHaveLength(6);
    });

    it("tries again at once when asked (the banner's Reconnect now, the browser back online), and resumes where it stood", async () => {
      // The first connection is held unanswered; the limit on it is far beyond the test: only `reconnectNow` gets past it.
      proxy.setMode((i) => (i === 0 ? { kind: "hold" } : { kind: "pass" }));
      const socket = socketFor([], { baseUrl: proxy.url, connectTimeoutMs: 600_000 });
      const runId = await startRun();
      const seen: RunEvent[] = [];
      socket.subscribe(runId, -1, (event) => seen.push(event));
      await poll(() => proxy.accepted).toBe(1);
      expect(socket.status).toBe("connecting");
      socket.reconnectNow();
      await poll(() => seen.at(-1)?.type, { timeout: 30_000 }).toBe("run.completed");
      socket.close();
      expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i));
      socket.reconnectNow(); // closed for good: nothing more happens
      expect(proxy.accepted).toBe(2);
    });
  });
});
