import { z } from "zod";
import { RunEventSchema, type RunEvent } from "@weft/types";
import { BunWebSocket } from "./bun-websocket.ts";
import { TEST_TOKEN } from "./test-server.ts";

/** A `/ws` event message: the stored event it carries, read through the shared schema. */
export const EventMessageSchema = z.object({ type: z.literal("event"), event: RunEventSchema });

/** The `type` of any `/ws` message, for picking messages out of `messages`. */
export function messageType(message: unknown): string | undefined {
  const parsed = z.object({ type: z.string() }).safeParse(message);
  return parsed.success ? parsed.data.type : undefined;
}

/** A real WebSocket client for tests: records every message and waits for the ones it needs. */
export class TestWsClient {
  readonly messages: unknown[] = [];
  private readonly socket: WebSocket;
  private waiters: (() => void)[] = [];
  private readonly parsed: RunEvent[] = [];
  private parsedUpTo = 0;
  closed = false;
  closeCode: number | undefined;

  private constructor(url: string, headers: Record<string, string>) {
    this.socket = new BunWebSocket(url, { headers });
    this.socket.onmessage = (e) => {
      this.messages.push(JSON.parse(String(e.data)));
      this.wake();
    };
    this.socket.onclose = (e) => {
      this.closed = true;
      this.closeCode = e.code;
      this.wake();
    };
  }

  /** Connects as the test servers' owner unless `headers` says otherwise. */
  static async connect(httpUrl: string, headers: Record<string, string> = { authorization: `Bearer ${TEST_TOKEN}` }): Promise<TestWsClient> {
    const client = new TestWsClient(httpUrl.replace(/^http/, "ws") + "/ws", headers);
    await new Promise<void>((resolve, reject) => {
      client.socket.onopen = () => resolve();
      client.socket.onerror = () => reject(new Error("WebSocket failed to connect"));
    });
    return client;
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  send(message: unknown): void {
    this.socket.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  subscribe(streamId: string, after = -1): void {
    this.send({ type: "subscribe", streamId, after });
  }

  /** Events received for a stream, in arrival order. */
  events(streamId: string): RunEvent[] {
    // Each message is parsed once: waiters call this on every message, and a replay brings hundreds.
    for (; this.parsedUpTo < this.messages.length; this.parsedUpTo++) {
      const m = this.messages[this.parsedUpTo];
      if (messageType(m) === "event") this.parsed.push(EventMessageSchema.parse(m).event);
    }
    return this.parsed.filter((event) => event.streamId === streamId);
  }

  async waitFor<T>(pick: (client: TestWsClient) => T | undefined, timeoutMs = 60_000, what = "message"): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = pick(this);
      if (value !== undefined) return value;
      if (this.closed) throw new Error(`socket closed (code ${this.closeCode}) while waiting for ${what}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits for the stream's terminal run event and returns all its events. */
  async waitForRunEnd(streamId: string, timeoutMs = 60_000): Promise<RunEvent[]> {
    return this.waitFor(
      (c) => {
        const events = c.events(streamId);
        return events.some((e) => e.type === "run.completed" || e.type === "run.failed" || e.type === "run.cancelled") ? events : undefined;
      },
      timeoutMs,
      `end of run ${streamId}`,
    );
  }

  close(): void {
    this.socket.close();
  }
}

/** Asserts seqs are exactly after+1, after+2, … with nothing missing or repeated. */
export function contiguousFrom(events: { seq: number }[], after: number): boolean {
  return events.every((e, i) => e.seq === after + 1 + i);
}
