import { createServer } from "node:net";

/**
 * A TCP port of 127.0.0.1 that was free a moment ago, for a server a test starts as a child process
 * (PostgreSQL, redis-server) that must be told its port. Another process may take it before the child
 * binds it: callers try again with a new port when the child fails to start.
 */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
