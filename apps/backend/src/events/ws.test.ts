import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type Socket } from "node:net";
import { z } from "zod";
import type { WorkflowInput } from "@weft/types";
import { startScriptedLlmServer } from "@weft/agent-runtime";
import { RunStatusSchema, StartedRunSchema } from "../testing/answers.ts";
import { chainWorkflow, delayChainWorkflow, EventsPageSchema, startTestServer, TEST_TOKEN, tempDir, waitForRun, type TestServer } from "../testing/test-server.ts";
import { contiguousFrom, EventMessageSchema, messageType, TestWsClient } from "../testing/ws-client.ts";

/** The server's answer to a bad message. */
const ErrorMessageSchema = z.object({ type: z.literal("error"), streamId: z.string().optional(), error: z.object({ code: z.string(), message: z.string() }) });
/** The server's word to a client that fell behind. */
const ResyncMessageSchema = z.object({ type: z.literal("resync"), streamId: z.string(), lastSeq: z.number().int(), reason: z.string() });

let t: TestServer;
const clients: TestWsClient[] = [];
async function client(): Promise<TestWsClient> {
  const c = await TestWsClient.connect(t.url);
  clients.push(c);
  return c;
}

beforeAll(async () => {
  t = await startTestServer({ runConcurrency: 4 });
  await t.call("POST", "/api/workflows", { workflow: chainWorkflow("chain", 300) });
  await t.call("POST", "/api/workflows", { workflow: chainWorkflow("chain2k", 2000) });
  await t.call("POST", "/api/workflows", { workflow: delayChainWorkflow("steady", 40, 25) });
});
afterAll(async () => {
  for (const c of clients) c.close();
  await t.stop();
});

async function runToEnd(workflowId: string): Promise<{ runId: string; total: number }> {
  const body = StartedRunSchema.parse((await t.call("POST", `/api/workflows/${workflowId}/runs`, {})).body);
  await waitForRun(t, body.runId);
  const events = EventsPageSchema.parse((await t.call("GET", `/api/runs/${body.runId}/events?limit=10000`)).body).events;
  return { runId: body.runId, total: events.length };
}

describe("/ws live events", () => {
  it("replays a finished run from the start, in order, after a subscribed acknowledgement", async () => {
    const { runId, total } = await runToEnd("chain");
    const c = await client();
    c.subscribe(runId);
    const events = await c.waitForRunEnd(runId);
    expect(c.messages[0]).toEqual({ type: "subscribed", streamId: runId, after: -1 });
    expect(events).toHaveLength(total);
    expect(contiguousFrom(events, -1)).toBe(true);
  });

  it("resumes after the last seq the client saw", async () => {
    const { runId, total } = await runToEnd("chain");
    const c = await client();
    c.subscribe(runId, 99);
    const events = await c.waitForRunEnd(runId);
    expect(events[0]?.seq).toBe(100);
    expect(events).toHaveLength(total - 100);
    expect(contiguousFrom(events, 99)).toBe(true);
  });

  it("delivers the same complete sequence to two clients watching one run live", async () => {
    const [a, b] = [await client(), await client()];
    const body = StartedRunSchema.parse((await t.call("POST", "/api/workflows/steady/runs", {})).body);
    a.subscribe(body.runId);
    b.subscribe(body.runId);
    const [ea, eb] = await Promise.all([a.waitForRunEnd(body.runId), b.waitForRunEnd(body.runId)]);
    const stored = EventsPageSchema.parse((await t.call("GET", `/api/runs/${body.runId}/events`)).body).events;
    expect(ea.map((e) => e.seq)).toEqual(stored.map((e) => e.seq));
    expect(eb).toEqual(ea);
    expect(contiguousFrom(ea, -1)).toBe(true);
  });

  it("loses nothing when a client reconnects mid-run with its last seq", async () => {
    const body = StartedRunSchema.parse((await t.call("POST", "/api/workflows/steady/runs", {})).body);
    const first = await client();
    first.subscribe(body.runId);
    const seen = await first.waitFor((c) => (c.events(body.runId).length >= 10 ? c.events(body.runId) : undefined));
    first.close();
    const lastSeq = seen.at(-1)!.seq;
    const status = RunStatusSchema.parse((await t.call("GET", `/api/runs/${body.runId}`)).body).run.status;
    expect(status).toBe("running"); // the reconnect really happens mid-run
    await Bun.sleep(100); // events keep coming while nobody listens
    const second = await client();
    second.subscribe(body.runId, lastSeq);
    const rest = await second.waitForRunEnd(body.runId);
    const all = [...seen, ...rest];
    expect(contiguousFrom(all, -1)).toBe(true);
    const stored = EventsPageSchema.parse((await t.call("GET", `/api/runs/${body.runId}/events`)).body).events;
    expect(all.map((e) => e.seq)).toEqual(stored.map((e) => e.seq));
  });

  it("has no gap or duplicate at the seam between stored and live events, whenever a client joins", async () => {
    const body = StartedRunSchema.parse((await t.call("POST", "/api/workflows/chain2k/runs", {})).body);
    const joiners: { c: TestWsClient; after: number }[] = [];
    for (let i = 0; i < 8; i++) {
      const c = await client();
      const stored = EventsPageSchema.parse((await t.call("GET", `/api/runs/${body.runId}/events?limit=10000`)).body).events;
      const after = stored.length > 0 ? stored[Math.floor(stored.length / 2)]!.seq : -1;
      c.subscribe(body.runId, after);
      joiners.push({ c, after });
      await Bun.sleep(15);
    }
    await waitForRun(t, body.runId, 90_000);
    const total = EventsPageSchema.parse((await t.call("GET", `/api/runs/${body.runId}/events?limit=10000`)).body).events.length;
    for (const { c, after } of joiners) {
      const events = await c.waitForRunEnd(body.runId, 60_000);
      expect(events).toHaveLength(total - after - 1);
      expect(contiguousFrom(events, after)).toBe(true);
    }
  });

  it("answers bad messages and unknown streams with an error, and keeps the connection", async () => {
    const c = await client();
    c.send("not json");
    c.send({ type: "subscribe" });
    c.send({ type: "subscribe", streamId: "no-such-run", after: -1 });
    c.send({ type: "subscribe", streamId: "x", after: -5 });
    const errors = await c.waitFor((cl) => {
      const e = cl.messages.filter((m) => messageType(m) === "error").map((m) => ErrorMessageSchema.parse(m));
      return e.length >= 4 ? e : undefined;
    });
    // The unknown stream is looked up in storage, so its answer may come after the next message's: each names its stream.
    expect(errors.map((e) => e.error.code).sort()).toEqual(["INVALID_JSON", "INVALID_MESSAGE", "INVALID_MESSAGE", "NOT_FOUND"]);
    expect(errors.find((e) => e.error.code === "NOT_FOUND")?.streamId).toBe("no-such-run");
    expect(errors[1]?.error.message).toContain("streamId");
    const { runId } = await runToEnd("chain");
    c.subscribe(runId, 290);
    expect((await c.waitForRunEnd(runId)).length).toBeGreaterThan(0);
    c.send({ type: "unsubscribe", streamId: runId });
    await c.waitFor((cl) => cl.messages.find((m) => messageType(m) === "unsubscribed"));
  });
});

describe("slow clients", () => {
  it("tells a client that stopped reading to resync instead of buffering without bound", async () => {
    const slow = await startTestServer({ ws: { maxQueuedEvents: 50, highWaterBytes: 64 * 1024 } });
    // The run's first node is an LLM call answered only on release(): the flood of events cannot start before the client
    // stops reading (a 300 ms delay did, under a CPU hog, and the client read it all and was never told to resync).
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const llm = await startScriptedLlmServer({ turns: [{ kind: "text", chunks: ["w".repeat(8 * 1024)], holdUntil: released }] });
    try {
      expect((await slow.call("POST", "/api/llm-profiles", { id: "held", name: "Held", baseUrl: llm.baseUrl, model: llm.model, apiKey: "sk-test" })).status).toBe(201);
      await slow.call("POST", "/api/workflows", { workflow: bigEventsWorkflow("big", 1500) });
      const raw = await RawWsClient.connect(slow.port());
      const body = StartedRunSchema.parse((await slow.call("POST", "/api/workflows/big/runs", {})).body);
      raw.send({ type: "subscribe", streamId: body.runId, after: -1 });
      // Caught up and live (the run's first node waits for its answer), then it stops reading; then the flood comes.
      await raw.readUntil((m) => messageType(m) === "event" && EventMessageSchema.parse(m).event.type === "node.started");
      raw.pause();
      release();
      await waitForRun(slow, body.runId, 90_000);
      await Bun.sleep(200);
      raw.resume();
      const messages = await raw.readUntil((m) => messageType(m) === "resync");
      expect(messages.at(-1)).toMatchObject({ type: "resync", streamId: body.runId });
      const resync = ResyncMessageSchema.parse(messages.at(-1));
      const events = messages.filter((m) => messageType(m) === "event").map((m) => EventMessageSchema.parse(m).event);
      expect(contiguousFrom(events, -1)).toBe(true);
      expect(resync.lastSeq).toBe(events.at(-1)?.seq ?? -1);
      expect(resync.reason).toContain(`/api/streams/${body.runId}/events?after=${resync.lastSeq}`);
      raw.close();
    } finally {
      release();
      await slow.stop();
      await llm.stop();
    }
  });
});

describe("across server restarts", () => {
  it("replays stored events after a restart", async () => {
    const dataDir = tempDir();
    const first = await startTestServer({ dataDir });
    await first.call("POST", "/api/workflows", { workflow: chainWorkflow("c", 50) });
    const body = StartedRunSchema.parse((await first.call("POST", "/api/workflows/c/runs", {})).body);
    await waitForRun(first, body.runId);
    const before = EventsPageSchema.parse((await first.call("GET", `/api/runs/${body.runId}/events`)).body).events;
    await first.stop();
    const second = await startTestServer({ dataDir });
    try {
      const c = await TestWsClient.connect(second.url);
      c.subscribe(body.runId, 9);
      const events = await c.waitForRunEnd(body.runId);
      expect(events).toEqual(before.slice(10));
      c.close();
    } finally {
      await second.stop();
    }
  });
});

/** A first LLM call (profile "held"), then a chain of `n` nodes each passing its answer on: every event carries its text. */
function bigEventsWorkflow(id: string, n: number) {
  const nodes: WorkflowInput["nodes"] = [{ id: "wait", type: "llm:chat", config: { profileId: "held" }, inputs: { prompt: "Go" } }];
  const edges: NonNullable<WorkflowInput["edges"]> = [];
  for (let i = 0; i < n; i++) {
    nodes.push({ id: `n${i}`, type: "core:text-template", config: { template: "{{0}}" } });
    edges.push({ id: `e${i}`, source: i === 0 ? "wait" : `n${i - 1}`, sourceHandle: "text", target: `n${i}`, targetHandle: "values" });
  }
  return { id, name: "Big events", nodes, edges };
}

/**
 * A minimal WebSocket client over a plain TCP socket that can stop reading, so the server really
 * sees a client that falls behind (the kernel buffers fill, then the server's own).
 */
class RawWsClient {
  private buffer = Buffer.alloc(0);
  private readonly parsed: unknown[] = [];
  private wake: (() => void) | undefined;

  private constructor(private readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.parse();
      this.wake?.();
    });
  }

  static async connect(port: number): Promise<RawWsClient> {
    const socket = connect(port, "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    socket.write(
      `GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n\r\n`,
    );
    const client = new RawWsClient(socket);
    await client.until(() => client.headerDone);
    return client;
  }

  private headerDone = false;

  private parse(): void {
    if (!this.headerDone) {
      const end = this.buffer.indexOf("\r\n\r\n");
      if (end === -1) return;
      this.headerDone = true;
      this.buffer = this.buffer.subarray(end + 4);
    }
    for (;;) {
      if (this.buffer.length < 2) return;
      let length = this.buffer[1] & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.buffer.length < 4) return;
        length = this.buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (this.buffer.length < 10) return;
        length = Number(this.buffer.readBigUInt64BE(2));
        offset = 10;
      }
      if (this.buffer.length < offset + length) return;
      const opcode = this.buffer[0] & 0x0f;
      if (opcode === 1) this.parsed.push(JSON.parse(this.buffer.subarray(offset, offset + length).toString("utf8")));
      this.buffer = this.buffer.subarray(offset + length);
    }
  }

  send(message: unknown): void {
    const payload = Buffer.from(JSON.stringify(message));
    const mask = Buffer.from([1, 2, 3, 4]);
    const header = payload.length < 126 ? Buffer.from([0x81, 0x80 | payload.length]) : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
    const masked = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]));
    this.socket.write(Buffer.concat([header, mask, masked]));
  }

  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  private async until(done: () => boolean, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error("raw client timed out");
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, 100);
      });
    }
  }

  async readUntil(stop: (message: unknown) => boolean): Promise<unknown[]> {
    await this.until(() => this.parsed.some(stop));
    return this.parsed.slice(0, this.parsed.findIndex(stop) + 1);
  }

  close(): void {
    this.socket.destroy();
  }
}
