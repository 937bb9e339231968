import type { Logger } from "@weft/types";
import type { EventRepository } from "./event-repository.ts";
import type { EventHub } from "./event-hub.ts";
import { CatchUpPages, type CatchUpPageLimits } from "./catch-up-pages.ts";
import { StreamSubscription, type MessageSink, type SubscriptionLimits } from "./stream-subscription.ts";
import { ClientMessageSchema, errorMessage, resyncMessage, subscribedMessage, unsubscribedMessage } from "./ws-protocol.ts";
import { messageOf } from "@weft/types";

/** What the gateway needs of a server-side WebSocket (Bun's `ServerWebSocket` fits). */
export interface EventSocket {
  /** Bun: bytes sent, -1 when queued behind backpressure, 0 when dropped. */
  send(data: string): number;
  getBufferedAmount(): number;
  close(code?: number, reason?: string): void;
  /**
   * Runs `work`, whose sends leave together (Bun: `cork`, one write for a batch of events). Outside Bun's own
   * socket callbacks every send was a write of its own: a busy stream's events came one system call apiece.
   */
  together<T>(work: () => T): T;
}

export interface GatewayOptions extends SubscriptionLimits {
  /** The stored pages catching-up subscribers share (`CatchUpPages`). */
  sharedPages: CatchUpPageLimits;
  /** Unsent bytes on a socket above which delivery pauses until it drains. */
  highWaterBytes: number;
  maxSubscriptionsPerClient: number;
}

class Connection implements MessageSink {
  readonly subscriptions = new Map<string, StreamSubscription>();
  dead = false;

  constructor(
    readonly socket: EventSocket,
    private readonly highWater: number,
  ) {}

  send(message: string): boolean {
    if (this.dead) return false;
    if (this.socket.send(message) === 0) {
      // Bun dropped the message: the client can no longer be served in order. It reconnects and resumes.
      this.dead = true;
      this.socket.close(1013, "event delivery overloaded; reconnect and subscribe with your last seq");
      return false;
    }
    return true;
  }

  congested(): boolean {
    return this.socket.getBufferedAmount() > this.highWater;
  }

  together<T>(work: () => T): T {
    return this.socket.together(work);
  }
}

/**
 * The `/ws` endpoint's logic, independent of the HTTP framework: parses client messages, keeps the
 * subscriptions of each connection and tells clients that fall too far behind to resync.
 */
export class WsGateway {
  private readonly connections = new Map<EventSocket, Connection>();
  private readonly pages: CatchUpPages;

  constructor(
    events: EventRepository,
    private readonly hub: EventHub,
    private readonly streamExists: (streamId: string) => Promise<boolean>,
    private readonly options: GatewayOptions,
    private readonly log: Logger,
  ) {
    this.pages = new CatchUpPages(events, options.sharedPages);
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  open(socket: EventSocket): void {
    const connection = new Connection(socket, this.options.highWaterBytes);
    this.connections.set(socket, connection);
  }

  message(socket: EventSocket, raw: unknown): void {
    const connection = this.connections.get(socket);
    if (!connection) return;
    let data = raw;
    if (typeof raw === "string" || raw instanceof Uint8Array) {
      const text = typeof raw === "string" ? raw : new TextDecoder().decode(raw);
      try {
        data = JSON.parse(text);
      } catch {
        connection.send(errorMessage("INVALID_JSON", 'The message is not JSON. Send e.g. {"type":"subscribe","streamId":"<run id>","after":-1}.'));
        return;
      }
    }
    const parsed = ClientMessageSchema.safeParse(data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
      connection.send(
        errorMessage(
          "INVALID_MESSAGE",
          `${where}${issue?.message ?? "invalid message"}. Expected {"type":"subscribe","streamId":string,"after":integer >= -1} or {"type":"unsubscribe","streamId":string}.`,
        ),
      );
      return;
    }
    const msg = parsed.data;
    switch (msg.type) {
      case "subscribe":
        void this.subscribe(connection, msg.streamId, msg.after);
        return;
      case "unsubscribe": {
        const sub = connection.subscriptions.get(msg.streamId);
        sub?.stop();
        connection.subscriptions.delete(msg.streamId);
        connection.send(unsubscribedMessage(msg.streamId));
        return;
      }
      default: {
        const never: never = msg;
        return never;
      }
    }
  }

  private async subscribe(connection: Connection, streamId: string, after: number): Promise<void> {
    if (!connection.subscriptions.has(streamId) && connection.subscriptions.size >= this.options.maxSubscriptionsPerClient) {
      connection.send(errorMessage("TOO_MANY_SUBSCRIPTIONS", `A connection may follow at most ${this.options.maxSubscriptionsPerClient} streams; unsubscribe from some first.`, streamId));
      return;
    }
    let exists: boolean;
    try {
      exists = await this.streamExists(streamId);
    } catch (error) {
      this.log.error("stream lookup failed", { streamId, error: messageOf(error) });
      connection.send(errorMessage("INTERNAL", "The stream could not be looked up; try again.", streamId));
      return;
    }
    if (connection.dead || !this.connections.has(connection.socket)) return;
    if (!exists) {
      connection.send(errorMessage("NOT_FOUND", `No run, conversation or scene has the id "${streamId}".`, streamId));
      return;
    }
    connection.subscriptions.get(streamId)?.stop();
    const subscription = new StreamSubscription(
      streamId,
      after,
      connection,
      this.pages,
      this.hub,
      this.options,
      (sub, lastDelivered, waiting) => {
        sub.stop();
        connection.subscriptions.delete(streamId);
        connection.send(
          resyncMessage(
            streamId,
            lastDelivered,
            `too far behind: ${waiting} events waiting. Fetch GET /api/streams/${streamId}/events?after=${lastDelivered}, then subscribe again with the last seq you have.`,
          ),
        );
      },
      (sub, error) => {
        sub.stop();
        connection.subscriptions.delete(streamId);
        this.log.error("reading events failed", { streamId, error: messageOf(error) });
        connection.send(errorMessage("INTERNAL", "Reading the stream's events failed; subscribe again.", streamId));
      },
    );
    connection.subscriptions.set(streamId, subscription);
    connection.send(subscribedMessage(streamId, after));
    subscription.pump();
  }

  drain(socket: EventSocket): void {
    const connection = this.connections.get(socket);
    if (!connection) return;
    for (const sub of connection.subscriptions.values()) {
      if (connection.congested()) return;
      sub.pump();
    }
  }

  close(socket: EventSocket): void {
    const connection = this.connections.get(socket);
    if (!connection) return;
    connection.dead = true;
    for (const sub of connection.subscriptions.values()) sub.stop();
    connection.subscriptions.clear();
    this.connections.delete(socket);
  }

  /** Closes every connection (server shutdown); clients reconnect and resume from their last seq. */
  closeAll(code: number, reason: string): void {
    for (const [socket, connection] of [...this.connections]) {
      this.close(socket);
      connection.socket.close(code, reason);
    }
  }
}
