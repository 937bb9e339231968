import type { Health } from "../shared/api/schemas.ts";

/** What the editor tells the user about the server's health: nothing while all is well. */
export interface HealthNotice {
  /** Machine-readable, for tests and styling. */
  kind: "server-unreachable" | "database-unreachable" | "redis-unreachable" | "no-workers";
  text: string;
}

/**
 * The one thing most worth saying about a health report, or undefined when nothing is wrong. `undefined`
 * health means the server itself did not answer. Ordered by what blocks the most: without the server or its
 * database nothing works; without Redis nothing starts; without workers things start but wait.
 */
export function healthNotice(health: Health | undefined): HealthNotice | undefined {
  if (!health) return { kind: "server-unreachable", text: "The Weft server does not answer. Changes you make now may not be saved; this notice goes once it is back." };
  if (health.database && !health.database.reachable) return { kind: "database-unreachable", text: "The server cannot reach its database: saving and running fail until it is back." };
  if (health.queue?.mode !== "queue") return undefined;
  if (health.queue.redis && !health.queue.redis.reachable) return { kind: "redis-unreachable", text: "The server cannot reach Redis: runs, agent messages and scenes cannot start until it is back." };
  if (health.queue.workers === 0)
    return {
      kind: "no-workers",
      text: "No worker is connected: runs, agent messages and scenes wait in the queue until one starts (bun run weft worker, with this server's WEFT_REDIS_URL and database).",
    };
  return undefined;
}
