import type { Server } from "bun";
import type { EventHub } from "../events/event-hub.ts";
import type { SqlHandle } from "../storage/sql-handle.ts";
import { safeEqual } from "../api/session-cookie.ts";
import { databaseProbe } from "./health/database-probe.ts";
import { WeftMetrics, type QueueRejections } from "./metrics/weft-metrics.ts";

export interface WorkerOpsOptions {
  /** The worker's hub: every batch its journal stores passes its tap. */
  hub: EventHub;
  sql: SqlHandle;
  /** Whether the worker's Redis answers PING. */
  redisReachable(): Promise<boolean>;
  /** What this worker dropped from Redis (`weft_queue_rejected_total`). */
  queueRejections?: QueueRejections;
  /** WEFT_WORKER_METRICS_PORT; 0 picks a free one. */
  port: number;
  /** Default 127.0.0.1. */
  hostname?: string;
  /** What `Authorization: Bearer …` must carry for /metrics: the install's access token. */
  token: string;
}

export interface WorkerOps {
  url: string;
  metrics: WeftMetrics;
  stop(): Promise<void>;
}

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/**
 * A worker process's own small HTTP listener, since its runs' events reach no API process's hub:
 * `GET /metrics` (bearer token) with the run and node metrics of the runs this worker executes, and
 * `GET /healthz` (public: `{ ok, database: { engine, reachable }, redis: { reachable } }`).
 */
export function startWorkerOps(options: WorkerOpsOptions): WorkerOps {
  const metrics = new WeftMetrics(undefined, options.queueRejections ? { queueRejections: options.queueRejections } : {});
  const untap = options.hub.tap(metrics.observe);
  const database = databaseProbe(options.sql);
  const server: Server<undefined> = Bun.serve({
    port: options.port,
    hostname: options.hostname ?? "127.0.0.1",
    fetch: async (request) => {
      const path = new URL(request.url).pathname;
      if (request.method !== "GET") return json({ error: { code: "METHOD_NOT_ALLOWED", message: "Only GET /metrics and GET /healthz are served here." } }, 405);
      if (path === "/healthz") {
        const [databaseUp, redisUp] = await Promise.all([
          database.ping().then(
            () => true,
            () => false,
          ),
          options.redisReachable().catch(() => false),
        ]);
        return json({ ok: databaseUp && redisUp, database: { engine: database.engine, reachable: databaseUp }, redis: { reachable: redisUp } }, databaseUp && redisUp ? 200 : 503);
      }
      if (path === "/metrics") {
        const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
        if (bearer === undefined || !safeEqual(bearer, options.token)) {
          return json({ error: { code: "UNAUTHENTICATED", message: 'Send "Authorization: Bearer <token>" with the access token (WEFT_AUTH_TOKEN or <data>/access-token).' } }, 401);
        }
        const { body, contentType } = await metrics.scrape();
        return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
      }
      return json({ error: { code: "NOT_FOUND", message: `A worker serves only GET /metrics and GET /healthz, not ${path}.` } }, 404);
    },
  });
  return {
    url: `http://${server.hostname}:${server.port}`,
    metrics,
    stop: async () => {
      untap();
      await server.stop(true);
    },
  };
}
