import { RunEventSchema, type RunEvent } from "@weft/types";
import type { ApiError, ApiResult } from "../api/errors.ts";

export type SocketStatus = "connecting" | "open" | "closed";
export type EventListener = (event: RunEvent) => void;

export interface LiveSocketOptions {
  url: string;
  /** REST catch-up (`GET /api/runs/:id/events?after=`), used when the server asks for a resync or a gap shows. */
  fetchEvents: (streamId: string, after: number) => Promise<ApiResult<RunEvent[]>>;
  WebSocketImpl?: typeof WebSocket;
  onStatus?: (status: SocketStatus) => void;
  onError?: (error: ApiError) => void;
  /**
   * Waits before reconnect attempts, each taken between half and all of it (jitter); the last one repeats. Reset once a
   * connection has stayed open a while: a server that accepts and drops at once is not hammered.
   */
  reconnectDelaysMs?: number[];
  /**
   * An attempt that has not opened after this long is given up and tried again (a handshake lost on the way
   * would otherwise hold the view at "connecting" until the browser's own limit, minutes). Doubled after each
   * attempt given up (up to 5 minutes), so a handshake that is only slow, on a loaded machine, still gets through.
   */
  connectTimeoutMs?: number;
}

interface Stream {
  lastSeq: number;
  listeners: Set<EventListener>;
  resyncing: boolean;
}

const DEFAULT_DELAYS_MS = [250, 500, 1000, 2000, 4000, 5000];
/** A connection open this long was a working one: losing it starts the backoff from the shortest wait again. */
const STABLE_OPEN_MS = 5000;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const MAX_CONNECT_TIMEOUT_MS = 300_000;

/**
 * One WebSocket to `/ws` shared by every live view. Each stream remembers the last `seq` it
 * delivered; after a reconnect (or a `resync` from the server, or a gap in the numbers) it resumes
 * from there, so listeners see every event exactly once and in order.
 */
export class LiveSocket {
  private socket: WebSocket | null = null;
  private readonly streams = new Map<string, Stream>();
  /** Failed attempts since the last open: picks the wait before the next one. */
  private attempt = 0;
  /** When the current connection opened (null while none is open): a connection lost soon after keeps the backoff. */
  private openedAt: number | null = null;
  /** Attempts in a row given up for taking too long: lengthens the next one's limit. */
  private slowAttempts = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private connectTimer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  status: SocketStatus = "closed";

  constructor(private readonly options: LiveSocketOptions) {}

  /** Listens to a stream from `after` (the last seq already seen; -1 for everything). Returns the unsubscribe. */
  subscribe(streamId: string, after: number, listener: EventListener): () => void {
    let stream = this.streams.get(streamId);
    if (!stream) {
      stream = { lastSeq: after, listeners: new Set(), resyncing: false };
      this.streams.set(streamId, stream);
      this.send({ type: "subscribe", streamId, after: stream.lastSeq });
    }
    stream.listeners.add(listener);
    this.ensureOpen();
    return () => {
      const s = this.streams.get(streamId);
      if (!s) return;
      s.listeners.delete(listener);
      if (s.listeners.size === 0) {
        this.streams.delete(streamId);
        this.send({ type: "unsubscribe", streamId });
      }
    };
  }

  lastSeq(streamId: string): number | undefined {
    return this.streams.get(streamId)?.lastSeq;
  }

  close(): void {
    this.closed = true;
    this.clearTimers();
    this.socket?.close();
    this.socket = null;
    this.setStatus("closed");
  }

  /** Drops the connection as a network failure would (the socket reconnects and resumes). */
  dropConnection(): void {
    this.socket?.close();
  }

  /**
   * Tries again at once, without the wait (the user's "Reconnect now", the browser back online or the tab
   * shown again). An open connection is kept; an attempt under way is given up for a new one.
   */
  reconnectNow(): void {
    if (this.closed || this.status === "open") return;
    this.attempt = 0;
    this.slowAttempts = 0;
    const stale = this.socket;
    this.clearTimers();
    this.socket = null;
    if (stale) {
      this.detach(stale);
      stale.close();
    }
    if (this.streams.size > 0) this.ensureOpen();
    else this.setStatus("closed");
  }

  private setStatus(status: SocketStatus) {
    this.status = status;
    this.options.onStatus?.(status);
  }

  private clearTimers() {
    if (this.timer) clearTimeout(this.timer);
    if (this.connectTimer) clearTimeout(this.connectTimer);
    this.timer = null;
    this.connectTimer = null;
  }

  private detach(socket: WebSocket) {
    socket.onopen = null;
    socket.onmessage = null;
    socket.onclose = null;
    socket.onerror = null;
  }

  private ensureOpen() {
    if (this.closed || this.socket || this.timer) return;
    const Impl = this.options.WebSocketImpl ?? WebSocket;
    const socket = new Impl(this.options.url);
    this.socket = socket;
    this.setStatus("connecting");
    const limit = Math.min((this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS) * 2 ** this.slowAttempts, MAX_CONNECT_TIMEOUT_MS);
    this.connectTimer = setTimeout(() => {
      this.connectTimer = null;
      if (this.socket !== socket || socket.readyState === 1) return;
      this.slowAttempts++;
      this.lost(socket);
    }, limit);
    socket.onopen = () => {
      if (this.connectTimer) clearTimeout(this.connectTimer);
      this.connectTimer = null;
      this.openedAt = Date.now();
      this.slowAttempts = 0;
      this.setStatus("open");
      for (const [streamId, stream] of this.streams) if (!stream.resyncing) this.send({ type: "subscribe", streamId, after: stream.lastSeq });
    };
    socket.onmessage = (message) => this.receive(String(message.data));
    socket.onclose = () => this.lost(socket);
    socket.onerror = () => this.lost(socket);
  }

  /** The connection (or the attempt) is gone: forgets it and plans the next attempt. */
  private lost(socket: WebSocket) {
    if (this.socket !== socket) return;
    this.detach(socket);
    if (socket.readyState !== 3) socket.close();
    if (this.connectTimer) clearTimeout(this.connectTimer);
    this.connectTimer = null;
    this.socket = null;
    if (this.openedAt !== null && Date.now() - this.openedAt >= STABLE_OPEN_MS) this.attempt = 0;
    this.openedAt = null;
    this.setStatus("closed");
    if (!this.closed && this.streams.size > 0) this.scheduleReconnect();
  }

  private scheduleReconnect() {
    const delays = this.options.reconnectDelaysMs ?? DEFAULT_DELAYS_MS;
    const delay = delays[Math.min(this.attempt, delays.length - 1)];
    // Half to all of the wait: pages that lost the same server do not all come back in the same instant.
    const wait = delay * (0.5 + 0.5 * Math.random());
    this.attempt++;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.ensureOpen();
    }, wait);
  }

  private send(message: unknown) {
    if (this.socket && this.socket.readyState === 1) this.socket.send(JSON.stringify(message));
  }

  private receive(text: string) {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof message !== "object" || message === null) return;
    const m = message as { type?: unknown; event?: unknown; streamId?: unknown; error?: { code?: unknown; message?: unknown } };
    if (m.type === "event") this.receiveEvent(m.event);
    else if (m.type === "resync" && typeof m.streamId === "string") void this.resync(m.streamId);
    else if (m.type === "error") this.options.onError?.({ code: String(m.error?.code ?? "SERVER_ERROR"), message: String(m.error?.message ?? "live updates failed"), status: 0 });
  }

  private receiveEvent(raw: unknown) {
    const head = raw as { streamId?: unknown; seq?: unknown };
    if (typeof head?.streamId !== "string" || typeof head.seq !== "number") return;
    const stream = this.streams.get(head.streamId);
    if (!stream || stream.resyncing || head.seq <= stream.lastSeq) return;
    if (head.seq > stream.lastSeq + 1) {
      void this.resync(head.streamId);
      return;
    }
    this.deliver(stream, raw);
  }

  private deliver(stream: Stream, raw: unknown) {
    const seq = (raw as { seq: number }).seq;
    stream.lastSeq = seq;
    const parsed = RunEventSchema.safeParse(raw);
    // An event kind newer than this editor still advances the position; it just has no view.
    if (!parsed.success) return;
    for (const listener of stream.listeners) listener(parsed.data);
  }

  /** Catches up over REST from the last delivered event, then subscribes again from there. */
  private async resync(streamId: string) {
    const stream = this.streams.get(streamId);
    if (!stream || stream.resyncing) return;
    stream.resyncing = true;
    this.send({ type: "unsubscribe", streamId });
    const result = await this.options.fetchEvents(streamId, stream.lastSeq);
    stream.resyncing = false;
    if (this.streams.get(streamId) !== stream) return;
    if (!result.ok) this.options.onError?.(result.error);
    else for (const event of result.value) if (event.seq > stream.lastSeq) this.deliver(stream, event);
    this.send({ type: "subscribe", streamId, after: stream.lastSeq });
  }
}
