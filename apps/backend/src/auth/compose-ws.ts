import { Elysia } from "elysia";
import type { Logger } from "@weft/types";
import type { EventHub } from "../events/event-hub.ts";
import type { EventRepository } from "../events/event-repository.ts";
import { eventSocketOf } from "../events/socket-adapter.ts";
import { WsGateway, type GatewayOptions } from "../events/ws-gateway.ts";
import type { WsAccess } from "./ws-access.ts";

/**
 * `/ws`: the event gateway behind the sockets' access. `knows` says whether a stream id names something a client may
 * subscribe to before it has events (a run, conversation, scene or eval run just created).
 */
export function composeWs(deps: { events: EventRepository; hub: EventHub; knows: (streamId: string) => Promise<boolean>; access: WsAccess; options?: Partial<GatewayOptions>; log: Logger }) {
  const { access: wsAccess } = deps;
  const gateway = new WsGateway(
    deps.events,
    deps.hub,
    deps.knows,
    { pageSize: 500, maxQueuedEvents: 20_000, highWaterBytes: 1024 * 1024, maxSubscriptionsPerClient: 256, sharedPages: { maxChars: 16 << 20, ttlMs: 5000 }, ...deps.options },
    deps.log.child("ws"),
  );
  const plugin = new Elysia().ws("/ws", {
    open: (ws) => {
      wsAccess.open(ws.raw, { request: ws.data.request, send: (text) => ws.send(text), close: (code, reason) => ws.close(code, reason) });
      gateway.open(eventSocketOf(ws.raw));
    },
    // The upgrade's principal, kept for the socket's life and checked again when the accounts change; a rate per socket.
    message: (ws, message) => wsAccess.message(ws.raw, () => gateway.message(eventSocketOf(ws.raw), message)),
    drain: (ws) => gateway.drain(eventSocketOf(ws.raw)),
    close: (ws) => {
      wsAccess.close(ws.raw);
      gateway.close(eventSocketOf(ws.raw));
    },
  });
  return { gateway, plugin };
}
