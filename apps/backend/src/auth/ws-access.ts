import { errorMessage } from "../events/ws-protocol.ts";
import type { Principal } from "../accounts/principal.ts";
import { principalOf } from "./principal.ts";
import { roleAtLeast } from "../accounts/roles.ts";

/** What the WebSocket handlers give for one connection. */
export interface WsPeer {
  /** The upgrade request: its credential (cookie, bearer) is checked again when the user's accounts change. */
  request: Request;
  send(text: string): void;
  close(code: number, reason: string): void;
}

/** Close code: the credential no longer signs anyone in (signed out, token revoked, user deleted, password reset). */
export const WS_SIGNED_OUT = 4401;
/** Close code: the client kept sending past its message rate after being told to slow down. */
export const WS_TOO_MANY_MESSAGES = 4429;

export interface WsRateLimits {
  /** Messages a socket may send at once (a reconnecting editor subscribes again to every stream it follows). */
  burst: number;
  /** Messages per second the bucket refills. */
  perSecond: number;
  /** Refused messages in a row after which the socket is closed (4429). */
  maxRefusedInRow: number;
  /** A cached principal older than this is checked again at the socket's next message (a missed signal, an expired session). */
  recheckMs: number;
}

export const DEFAULT_WS_RATE_LIMITS: WsRateLimits = { burst: 64, perSecond: 20, maxRefusedInRow: 64, recheckMs: 60_000 };

interface SocketState {
  peer: WsPeer;
  principal: Principal | undefined;
  checkedAt: number;
  /** A check of the credential under way: later messages wait for it, in order. */
  pending: Promise<void> | undefined;
  tokens: number;
  refilledAt: number;
  refusedInRow: number;
  closed: boolean;
}

/**
 * Who may use an open `/ws`, and how fast. The principal is the upgrade's (the trust boundary checked
 * it), kept for the socket's life: a message costs no database lookup. It is checked again when the
 * accounts say the user's credentials changed (`recheckUser`: a token revoked, a session ended, a role
 * changed, a password reset, the user deleted — in queue mode also when another API process changed
 * them), and at the first message after `recheckMs`. A credential that no longer signs anyone in
 * closes the socket (4401). Each socket's messages pass a token bucket: past it a message gets an
 * error frame, and a socket that keeps on is closed (4429).
 */
export class WsAccess {
  private readonly sockets = new Map<object, SocketState>();

  constructor(
    private readonly authenticate: (request: Request) => Promise<Principal | undefined>,
    private readonly limits: WsRateLimits = DEFAULT_WS_RATE_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  open(socket: object, peer: WsPeer): void {
    const principal = principalOf(peer.request);
    const at = this.now();
    // No principal recorded for the upgrade (never the case behind the trust boundary): checked at the first message.
    this.sockets.set(socket, { peer, principal, checkedAt: principal ? at : -Infinity, pending: undefined, tokens: this.limits.burst, refilledAt: at, refusedInRow: 0, closed: false });
  }

  close(socket: object): void {
    const state = this.sockets.get(socket);
    if (state) state.closed = true;
    this.sockets.delete(socket);
  }

  message(socket: object, deliver: () => void): void {
    const state = this.sockets.get(socket);
    if (!state || state.closed) return;
    if (!this.take(state)) {
      state.refusedInRow++;
      if (state.refusedInRow >= this.limits.maxRefusedInRow) {
        this.end(state, WS_TOO_MANY_MESSAGES, "too many messages", "TOO_MANY_MESSAGES", "This socket kept sending past its message rate; it is closed. Reconnect and send fewer messages.");
        return;
      }
      state.peer.send(
        errorMessage(
          "TOO_MANY_MESSAGES",
          `Too many messages on this socket: at most ${this.limits.burst} at once and ${this.limits.perSecond} a second. This one was ignored; slow down or the socket is closed.`,
        ),
      );
      return;
    }
    state.refusedInRow = 0;
    if (state.pending === undefined && this.now() - state.checkedAt > this.limits.recheckMs) this.recheck(state);
    if (state.pending === undefined) return this.deliverIfAllowed(state, deliver);
    this.enqueue(state, () => this.deliverIfAllowed(state, deliver));
  }

  /** Checks again the credential of every open socket of this user (their accounts changed); closes those it no longer signs in. */
  recheckUser(userId: string): void {
    for (const state of this.sockets.values()) if (state.principal?.userId === userId) this.recheck(state);
  }

  get socketCount(): number {
    return this.sockets.size;
  }

  private recheck(state: SocketState): void {
    this.enqueue(state, async () => {
      if (state.closed) return;
      state.principal = await this.authenticate(state.peer.request).catch(() => undefined);
      state.checkedAt = this.now();
      // Watching runs is the viewer's right: the least role there is, so a signed-in principal passes.
      if (!state.principal || !roleAtLeast(state.principal.role, "viewer"))
        this.end(state, WS_SIGNED_OUT, "signed out", "UNAUTHENTICATED", "Your session ended or your token was revoked; sign in again and reconnect.");
    });
  }

  /** Runs `work` after what the socket has queued, keeping its messages in order; one failure does not stop the later ones. */
  private enqueue(state: SocketState, work: () => void | Promise<void>): void {
    const next = (state.pending ?? Promise.resolve()).then(work).catch(() => undefined);
    state.pending = next;
    // Once settled with nothing queued behind it, messages go through at once again.
    void next.then(() => {
      if (state.pending === next) state.pending = undefined;
    });
  }

  private deliverIfAllowed(state: SocketState, deliver: () => void): void {
    if (!state.closed && state.principal) deliver();
  }

  private end(state: SocketState, code: number, reason: string, errorCode: string, text: string): void {
    if (state.closed) return;
    state.closed = true;
    state.peer.send(errorMessage(errorCode, text));
    state.peer.close(code, reason);
  }

  private take(state: SocketState): boolean {
    const at = this.now();
    state.tokens = Math.min(this.limits.burst, state.tokens + ((at - state.refilledAt) / 1000) * this.limits.perSecond);
    state.refilledAt = at;
    if (state.tokens < 1) return false;
    state.tokens -= 1;
    return true;
  }
}
