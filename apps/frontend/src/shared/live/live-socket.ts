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
  /** Waits before reconnect attempts; the last one repeats. */
  reconnectDelaysMs?: number[];
}

interface Stream {
  lastSeq: number;
  listeners: Set<EventListener>;
  resyncing: boolean;
}

/**
 * One WebSocket to `/ws` shared by every live view. Each stream remembers the last `seq` it
 * delivered; after a reconnect (or a `resync` from the server, or a gap in the numbers) it resumes
 * from there, so listeners see every event exactly once and in order.
 */
export class LiveSocket {
  private socket: WebSocket | null = null;
  private readonly streams = new Map<string, Stream>();
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
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
    if (this.timer) clearTimeout(this.timer);
    this.socket?.close();
    this.socket = null;
    this.setStatus("closed");
  }

  /** Drops the connection as a network failure would (the socket reconnects and resumes). */
  dropConnection(): void {
    this.socket?.close();
  }

  private setStatus(status: SocketStatus) {
    this.status = status;
    this.options.onStatus?.(status);
  }

  private ensureOpen() {
    if (this.closed || this.socket || this.timer) return;
    const Impl = this.options.WebSocketImpl ?? WebSocket;
    const socket = new Impl(this.options.url);
    this.socket = socket;
    this.setStatus("connecting");
    socket.onopen = () => {
      this.attempt = 0;
      this.setStatus("open");
      for (const [streamId, stream] of this.streams) if (!stream.resyncing) this.send({ type: "subscribe", streamId, after: stream.lastSeq });
    };
    socket.onmessage = (message) => this.receive(String(message.data));
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.setStatus("closed");
      if (!this.closed && this.streams.size > 0) this.scheduleReconnect();
    };
    socket.onerror = () => socket.close();
  }

  private scheduleReconnect() {
    const delays = this.options.reconnectDelaysMs ?? [250, 500, 1000, 2000, 5000];
    const delay = delays[Math.min(this.attempt, delays.length - 1)];
    this.attempt++;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.ensureOpen();
    }, delay);
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
