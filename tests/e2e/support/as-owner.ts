import { BunWebSocket } from "../../../apps/backend/src/testing/bun-websocket.ts";

/** A script's way in: the access token on every request and on the WebSocket upgrade. */

export function ownerFetch(token: string): (url: string, init: RequestInit) => Promise<Response> {
  return (url, init) => fetch(url, { ...init, headers: { ...(init.headers as Record<string, string> | undefined), authorization: `Bearer ${token}` } });
}

/** A WebSocket class that sends the token, for code that takes a `WebSocketImpl`. */
export function ownerWebSocket(token: string): typeof WebSocket {
  return class extends BunWebSocket {
    constructor(url: string | URL) {
      super(url, { headers: { authorization: `Bearer ${token}` } });
    }
  } as unknown as typeof WebSocket;
}
