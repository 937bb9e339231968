import type { EventSocket } from "./ws-gateway.ts";

/** What Elysia hands over as `ws.raw` (Bun's ServerWebSocket; Elysia's copy of its type omits getBufferedAmount). */
interface RawSocket {
  send(data: string): unknown;
  close(code?: number, reason?: string): void;
  cork?<T>(callback: () => T): T;
}

const adapted = new WeakMap<object, EventSocket>();

/** The same EventSocket for the same raw socket across callbacks, so the gateway can key on it. */
export function eventSocketOf(raw: RawSocket): EventSocket {
  let socket = adapted.get(raw);
  if (socket) return socket;
  const buffered = raw as RawSocket & { getBufferedAmount?: () => number };
  socket = {
    send: (data) => {
      const status = raw.send(data);
      return typeof status === "number" ? status : data.length;
    },
    getBufferedAmount: () => buffered.getBufferedAmount?.() ?? 0,
    close: (code, reason) => raw.close(code, reason),
    together: (work) => (raw.cork ? raw.cork(work) : work()),
  };
  adapted.set(raw, socket);
  return socket;
}
