import { Elysia } from "elysia";
import { BudgetLimitSchema, BudgetSchema, BudgetScopeSchema, BudgetTargetSchema, type Budget, type BudgetLimit, type BudgetScope, type BudgetTarget } from "@weft/types";
import { z } from "zod";
import { ApiError, answer } from "../api/errors.ts";
import { parseWith, readBody } from "../api/body.ts";
import { route, type ApiRoute } from "../api/openapi-routes.ts";
import { principalOf } from "../auth/principal.ts";
import type { Budgets } from "./budget-cache.ts";

/** A budget is two numbers. */
const MAX_BODY_BYTES = 4096;
const BudgetsAnswerSchema = z.object({ budgets: z.array(BudgetSchema) });
const PathSchema = z.object({ target: BudgetTargetSchema, id: z.string().min(1).max(200) });

/** The owner's ceiling each target's own budget must stay within. */
const CEILING_OF: Record<Exclude<BudgetTarget, "owner" | "user">, BudgetScope> = { workflow: "run", agent: "conversation", scene: "scene" };

/**
 * `GET /api/budgets`, `PUT` and `DELETE /api/budgets/{target}/{id}`. The owner's ceilings and users' daily budgets are
 * an owner's to set; a workflow's, agent's or scene's own budget an editor's, only at or below the owner's ceiling
 * (refused above it — and the guard holds the ceiling anyway). Anyone but an owner reads only their own user budget.
 */
export function budgetApi(budgets: Budgets) {
  const pathOf = (params: Record<string, string | undefined>) => {
    const path = parseWith(PathSchema, params, "path");
    if (path.target === "owner" && !BudgetScopeSchema.safeParse(path.id).success) {
      throw new ApiError("VALIDATION_FAILED", `An owner budget's id is one of ${BudgetScopeSchema.options.join(", ")} (got "${path.id}").`, { id: path.id });
    }
    return path;
  };
  const mayChange = (request: Request, target: BudgetTarget) => {
    const principal = principalOf(request);
    if ((target === "owner" || target === "user") && principal?.role !== "owner") {
      throw new ApiError(
        "FORBIDDEN",
        `Only an owner sets the ${target === "owner" ? "install's budget ceilings" : "users' daily budgets"}; ask an owner (Settings → ${target === "owner" ? "Budgets" : "Users"}).`,
        { target },
      );
    }
  };
  return new Elysia()
    .get("/api/budgets", async ({ request }) => {
      const principal = principalOf(request);
      const all = await budgets.list();
      const visible = principal?.role === "owner" ? all : all.filter((b) => b.target !== "user" || b.id === principal?.userId);
      return answer(BudgetsAnswerSchema, { budgets: visible }, 200, { "cache-control": "no-store" });
    })
    .put("/api/budgets/:target/:id", async ({ request, params }) => {
      const { target, id } = pathOf(params);
      mayChange(request, target);
      const limit = await readBody(request, BudgetLimitSchema, MAX_BODY_BYTES);
      if (limit.tokens === undefined && limit.costUsd === undefined) {
        throw new ApiError("VALIDATION_FAILED", "A budget needs tokens and/or costUsd; to remove one, DELETE it.", {});
      }
      if (target !== "owner" && target !== "user") await withinCeiling(budgets, CEILING_OF[target], limit);
      await budgets.set(target, id, limit);
      const stored: Budget = { target, id, limit };
      return answer(BudgetSchema, stored);
    })
    .delete("/api/budgets/:target/:id", async ({ request, params }) => {
      const { target, id } = pathOf(params);
      mayChange(request, target);
      if (!(await budgets.remove(target, id))) throw new ApiError("NOT_FOUND", `No budget is set for ${target} "${id}".`, { target, id });
      return new Response(null, { status: 204 });
    });
}

/** Refuses a budget above the owner's ceiling for its scope, naming the ceiling. */
async function withinCeiling(budgets: Budgets, scope: BudgetScope, limit: BudgetLimit): Promise<void> {
  const ceiling = (await budgets.getMany([{ target: "owner", id: scope }])).get(`owner/${scope}`);
  if (!ceiling) return;
  for (const field of ["tokens", "costUsd"] as const) {
    const max = ceiling[field];
    if (max === undefined) continue;
    const asked = limit[field];
    if (asked === undefined || asked > max) {
      throw new ApiError(
        "BUDGET_ABOVE_CEILING",
        asked === undefined
          ? `The owner's ${scope} ceiling limits ${field} to ${max}; set ${field} at or below it (a budget here can only be narrower).`
          : `${field} ${asked} is above the owner's ${scope} ceiling of ${max}; set it at or below ${max}, or ask an owner to raise the ceiling (Settings → Budgets).`,
        { field, ceiling: max, asked: asked ?? null },
      );
    }
  }
}

export const BUDGET_ROUTES: readonly ApiRoute[] = [
  route("GET", "/api/budgets", "usage", "The token and cost budgets: the owner's ceilings, users' daily budgets (an owner sees all, others their own) and workflows', agents' and scenes' own", {
    response: BudgetsAnswerSchema,
  }),
  route("PUT", "/api/budgets/:target/:id", "usage", "Set a budget (owner and user: owners only; workflow, agent, scene: editors, within the owner's ceiling)", {
    body: BudgetLimitSchema,
    response: BudgetSchema,
  }),
  route("DELETE", "/api/budgets/:target/:id", "usage", "Remove a budget", { status: 204 }),
];
