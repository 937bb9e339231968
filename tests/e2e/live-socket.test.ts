import { describe, expect, it } from "vitest";
import { poll } from "./support/poll.ts";
import { ownerWebSocket } from "./support/as-owner.ts";
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

function socketFor(statuses: SocketStatus[] = []) {
  return new LiveSocket({
    url: served.server.url.replace("http", "ws") + "/ws",
    fetchEvents: (id, after) => served.client.runEvents(id, after),
    WebSocketImpl: ownerWebSocket(served.server.accessToken),
    onStatus: (s) => statuses.push(s),
    reconnectDelaysMs: [50],
  });
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
});
