import { connect, createServer, type Server, type Socket } from "node:net";

/** What the proxy does with a new connection: passes it on (after `delayMs`), or holds it unanswered (a handshake lost on the way). */
export type ProxyMode = { kind: "pass"; delayMs?: number } | { kind: "hold" };

export interface TcpProxy {
  /** The proxy's address, to use in place of the upstream's (`http://127.0.0.1:<port>`). */
  url: string;
  /** Connections accepted so far, held ones included. */
  readonly accepted: number;
  /** Decides each new connection's fate, by its number (0 for the first). */
  setMode(mode: (index: number) => ProxyMode): void;
  stop(): Promise<void>;
}

/**
 * A TCP relay in front of a real server, for tests of what a client does when the network misbehaves:
 * connections that are never answered or come through late. Bytes pass unchanged, both ways.
 */
export async function startTcpProxy(upstreamPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  let decide: (index: number) => ProxyMode = () => ({ kind: "pass" });
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const server: Server = createServer((client) => {
    track(client);
    const mode = decide(accepted++);
    client.pause();
    if (mode.kind === "hold") return;
    const relay = () => {
      if (client.destroyed) return;
      const upstream = connect(upstreamPort, "127.0.0.1");
      track(upstream);
      upstream.on("close", () => client.destroy());
      client.on("close", () => upstream.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
    };
    if (mode.delayMs) setTimeout(relay, mode.delayMs);
    else relay();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the proxy has no TCP port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    get accepted() {
      return accepted;
    },
    setMode(mode) {
      decide = mode;
    },
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
