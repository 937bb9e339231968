import { BunWebSocket } from "../../apps/backend/src/testing/bun-websocket.ts";
import { TEST_TOKEN } from "../../apps/backend/src/testing/http-call.ts";

/**
 * Waits for a stream's ending event on a server's `/ws`, as the editor follows a run or an eval run: one socket, and
 * each message read only as far as its event type. Polling `GET` of a run (1,000 observations) or an eval run (1,000
 * results) instead measured mostly the polling answers, which the bench's own process builds and parses.
 */
export class StreamEnds {
  private readonly waiting = new Map<string, { types: ReadonlySet<string>; resolve: (type: string) => void }>();

  private constructor(private readonly socket: WebSocket) {
    socket.onmessage = (e) => {
      const message = JSON.parse(String(e.data)) as { type?: string; event?: { streamId?: string; type?: string } };
      if (message.type !== "event" || message.event?.streamId === undefined || message.event.type === undefined) return;
      const waiter = this.waiting.get(message.event.streamId);
      if (waiter === undefined || !waiter.types.has(message.event.type)) return;
      this.waiting.delete(message.event.streamId);
      this.send({ type: "unsubscribe", streamId: message.event.streamId });
      waiter.resolve(message.event.type);
    };
  }

  /** Connects to `httpUrl`'s `/ws` as the test servers' owner. */
  static async connect(httpUrl: string): Promise<StreamEnds> {
    const socket = new BunWebSocket(httpUrl.replace(/^http/, "ws") + "/ws", { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    await new Promise<void>((resolve, reject) => {
      socket.onopen = () => resolve();
      socket.onerror = () => reject(new Error(`the WebSocket to ${httpUrl}/ws failed to connect`));
    });
    return new StreamEnds(socket);
  }

  /**
   * Resolves with the type of the first event of `streamId` among `types` (the stream replayed from its start, so an
   * end before the call counts); rejects after `timeoutMs`.
   */
  end(streamId: string, types: readonly string[], timeoutMs: number): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(streamId);
        reject(new Error(`no ${types.join(" / ")} on stream ${streamId} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(streamId, {
        types: new Set(types),
        resolve: (type) => {
          clearTimeout(timer);
          resolve(type);
        },
      });
      this.send({ type: "subscribe", streamId, after: -1 });
    });
  }

  close(): void {
    this.socket.close();
  }

  private send(message: unknown): void {
    this.socket.send(JSON.stringify(message));
  }
}
