import { errorMessage } from "../events/ws-protocol.ts";
import type { Principal } from "./principal.ts";
import { roleAtLeast } from "../accounts/roles.ts";

/** What the WebSocket handlers give for one connection. */
export interface WsPeer {
  /** The upgrade request: its credential (cookie, bearer) is checked again for each message. */
  request: Request;
  send(text: string): void;
  close(code: number, reason: string): void;
}

/** Close code: the credential no longer signs anyone in (signed out, token revoked, user deleted). */
export const WS_SIGNED_OUT = 4401;

/**
 * Authorizes every subscription, not only the upgrade: each message waits for its credential to be
 * checked again, so a session ended or a token revoked stops an open socket at its next subscribe.
 * Messages of one socket stay in order (each waits for the one before).
 */
export class WsAccess {
  private readonly queues = new WeakMap<object, Promise<void>>();

  constructor(private readonly authenticate: (request: Request) => Promise<Principal | undefined>) {}

  message(socket: object, peer: WsPeer, deliver: () => void): void {
    const previous = this.queues.get(socket) ?? Promise.resolve();
    const next = previous.then(async () => {
      const principal = await this.authenticate(peer.request).catch(() => undefined);
      // Watching runs is the viewer's right: the least role there is, so a signed-in principal passes.
      if (principal && roleAtLeast(principal.role, "viewer")) return deliver();
      peer.send(errorMessage("UNAUTHENTICATED", "Your session ended or your token was revoked; sign in again and reconnect."));
      peer.close(WS_SIGNED_OUT, "signed out");
    });
    // One failed message must not stop the socket's later ones: the chain goes on past a rejection.
    this.queues.set(
      socket,
      next.catch(() => undefined),
    );
  }
}
