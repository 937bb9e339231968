import { Elysia } from "elysia";
import { ApiError } from "../../api/errors.ts";
import { principalOf } from "../../auth/principal.ts";
import type { WeftMetrics } from "./weft-metrics.ts";

/** Where Prometheus scrapes; outside /api/ by convention, yet authenticated like every route but the health probe. */
export const METRICS_PATH = "/metrics";

/**
 * `GET /metrics`: the Prometheus exposition text. The route rules (auth/route-rules.ts) ask for a
 * viewer; the principal is checked here again, since a path outside /api/ is an editor file (public)
 * unless a rule says otherwise. A scraper sends `Authorization: Bearer <token>` (docs/deploy.md).
 */
export function metricsApi(metrics: WeftMetrics) {
  return new Elysia().get(METRICS_PATH, async ({ request }) => {
    if (!principalOf(request)) {
      throw new ApiError("UNAUTHENTICATED", `Metrics need a credential: send "Authorization: Bearer <token>" (docs/deploy.md shows a Prometheus scrape config).`);
    }
    const { body, contentType } = await metrics.scrape();
    return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
  });
}
