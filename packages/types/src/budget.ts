import { z } from "zod";

/** A budget: at most this many tokens and/or this many US dollars; an absent field is no limit of that kind. */
export const BudgetLimitSchema = z
  .object({
    tokens: z.number().int().positive().optional(),
    costUsd: z.number().positive().optional(),
  })
  .strict();
export type BudgetLimit = z.infer<typeof BudgetLimitSchema>;

/**
 * What a budget applies to. `owner` holds the install's ceilings (its ids: `run`, `conversation`, `scene`, `user-day`
 * — the default daily limit of every user); `user` one user's daily limit (owner-set); `workflow` each run of that
 * workflow, `agent` each conversation of that agent profile, `scene` that scene — each only narrower than the owner's.
 */
export const BUDGET_TARGETS = ["owner", "user", "workflow", "agent", "scene"] as const;
export const BudgetTargetSchema = z.enum(BUDGET_TARGETS);
export type BudgetTarget = z.infer<typeof BudgetTargetSchema>;

/** The ids an `owner` budget may have: the scope each ceiling limits. */
export const BUDGET_SCOPES = ["run", "conversation", "scene", "user-day"] as const;
export const BudgetScopeSchema = z.enum(BUDGET_SCOPES);
export type BudgetScope = z.infer<typeof BudgetScopeSchema>;

/** One stored budget. */
export const BudgetSchema = z.object({ target: BudgetTargetSchema, id: z.string(), limit: BudgetLimitSchema });
export type Budget = z.infer<typeof BudgetSchema>;

/** Below this share of a budget left, an agent is told in its context how much remains. */
export const LOW_BUDGET_SHARE = 0.2;
