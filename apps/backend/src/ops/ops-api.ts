import { Elysia } from "elysia";
import { answer } from "../api/errors.ts";
import { route, type ApiRoute } from "../api/openapi-routes.ts";
import { HealthReportSchema, type HealthReporter } from "./health/health-report.ts";
import { metricsApi } from "./metrics/metrics-api.ts";
import type { WeftMetrics } from "./metrics/weft-metrics.ts";

/**
 * `GET /api/health` (public: the trust boundary lets it through; it answers 503 when the database or
 * Redis does not) and `GET /metrics` (authenticated).
 */
export function opsApi(health: HealthReporter, metrics: WeftMetrics) {
  return new Elysia()
    .get("/api/health", async () => {
      const report = await health.report();
      return answer(HealthReportSchema, report, report.ok ? 200 : 503);
    })
    .use(metricsApi(metrics));
}

/** The ops routes under /api/, as the OpenAPI document describes them (`/metrics` is outside it). */
export const OPS_ROUTES: readonly ApiRoute[] = [
  route("GET", "/api/health", "health", "Liveness and version (public); 503 with the same body when the database or Redis does not answer", { response: HealthReportSchema }),
];
