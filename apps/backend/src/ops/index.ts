import type { StorageEngine } from "../storage/storage.ts";
import type { StoredEvent } from "../events/event-repository.ts";
import { databaseProbe } from "./health/database-probe.ts";
import { HealthReporter } from "./health/health-report.ts";
import { WeftMetrics, type QueueRejections } from "./metrics/weft-metrics.ts";
import { opsApi } from "./ops-api.ts";
import type { RunQueueProbe } from "./queue-probe.ts";

export { embeddedQueueProbe, type RunQueueProbe } from "./queue-probe.ts";

export interface Ops {
  metrics: WeftMetrics;
  health: HealthReporter;
  /** Feed every batch of stored events here (the event hub's tap): run and node metrics come from them. */
  observe(events: readonly StoredEvent[]): void;
  /** The Elysia plugin with `GET /api/health` and `GET /metrics`. */
  api: ReturnType<typeof opsApi>;
}

/** Operations: Prometheus metrics and the health probe of one server process. */
export function createOps(deps: { storage: Pick<StorageEngine, "sql">; queue: RunQueueProbe; version: string; queueRejections?: QueueRejections }): Ops {
  const metrics = new WeftMetrics(deps.queue, deps.queueRejections ? { queueRejections: deps.queueRejections } : {});
  const health = new HealthReporter(deps.version, databaseProbe(deps.storage.sql), deps.queue);
  return { metrics, health, observe: metrics.observe, api: opsApi(health, metrics) };
}
