import { Elysia } from "elysia";
import { ApiError, jsonResponse } from "../api/errors.ts";
import { parseWith } from "../api/body.ts";
import { route, type ApiRoute } from "../api/openapi-routes.ts";
import { principalOf } from "../auth/principal.ts";
import { usageCsv } from "./usage-csv.ts";
import type { UsageRepository } from "./usage-repository.ts";
import { UsageQuerySchema, UsageReportSchema, type UsageQuery, type UsageReport, type UsageRow } from "./usage-schemas.ts";

const EMPTY: UsageRow = { calls: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, reasoningTokens: 0, totalTokens: 0, costUsd: null, unpricedCalls: 0, estimatedCalls: 0 };

/**
 * `GET /api/usage`: LLM tokens and cost summed by day, user, profile, model, workflow, agent, run, conversation or
 * scene, as JSON or CSV. An owner sees everyone's; anyone else only their own calls — except the totals of one run,
 * conversation or scene (what a run header or chat shows), which every reader of that run sees, as they see its outputs.
 */
export function usageApi(usage: UsageRepository) {
  return new Elysia().get("/api/usage", async ({ request, query }) => {
    const { format, ...asked } = parseWith(UsageQuerySchema, query, "query");
    const principal = principalOf(request);
    const oneThing = asked.runId !== undefined || asked.conversationId !== undefined || asked.sceneId !== undefined;
    const q: UsageQuery = { ...asked };
    if (principal?.role !== "owner") {
      const self = principal?.userId ?? "";
      if (q.userId !== undefined && q.userId !== self) {
        throw new ApiError("FORBIDDEN", `Only an owner reads another user's usage; leave userId out (or set it to your own id, "${self}") to read yours.`, { userId: q.userId });
      }
      if (!oneThing) q.userId = self;
    }
    const groupBy = q.groupBy ?? [];
    const [rows, [total]] = await Promise.all([usage.report(q), usage.report({ ...q, groupBy: [] })]);
    if (format === "csv") {
      return new Response(usageCsv(groupBy, rows), {
        headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": 'attachment; filename="weft-usage.csv"', "cache-control": "no-store" },
      });
    }
    const report: UsageReport = { from: q.from ?? null, to: q.to ?? null, groupBy, rows, total: total ?? EMPTY };
    return jsonResponse(report, 200, { "cache-control": "no-store" });
  });
}

export const USAGE_ROUTES: readonly ApiRoute[] = [
  route("GET", "/api/usage", "usage", "LLM tokens and cost, summed by day, user, profile, model, workflow, agent, run, conversation or scene (JSON, or CSV with format=csv)", {
    query: UsageQuerySchema,
    response: UsageReportSchema,
  }),
];
