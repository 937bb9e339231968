import { LOW_BUDGET_SHARE, LlmError, type BudgetLimit, type BudgetTarget, type LlmCallAllowance, type LlmCallEstimate } from "@weft/types";
import type { RunFactsLookup } from "./run-facts.ts";
import type { Budgets } from "./budget-cache.ts";
import type { UsageRepository } from "./usage-repository.ts";
import type { UsageQuery } from "./usage-schemas.ts";

/** What a budget limits, as its messages name it. */
type Scope = "run" | "conversation" | "scene" | "user-day";

/** One field of a budget in force, and who set it (the narrowest of the owner's ceiling and the thing's own). */
interface Bound {
  value: number;
  target: BudgetTarget;
  id: string;
}

interface ScopeCheck {
  scope: Scope;
  tokens?: Bound;
  costUsd?: Bound;
  used: UsageQuery;
}

const SCOPE_WORDS: Record<Scope, string> = { run: "this run's", conversation: "this agent conversation's", scene: "this scene's", "user-day": "today's (UTC) per-user" };

/** The narrower of two budgets, field by field; each field remembers which budget set it. */
function narrowest(own: { target: BudgetTarget; id: string; limit: BudgetLimit | undefined }, ceiling: { target: BudgetTarget; id: string; limit: BudgetLimit | undefined }) {
  const pick = (field: keyof BudgetLimit): Bound | undefined => {
    const a = own.limit?.[field];
    const b = ceiling.limit?.[field];
    if (a === undefined && b === undefined) return undefined;
    if (b === undefined || (a !== undefined && a <= b)) return { value: a!, target: own.target, id: own.id };
    return { value: b, target: ceiling.target, id: ceiling.id };
  };
  return { tokens: pick("tokens"), costUsd: pick("costUsd") };
}

function startOfUtcDay(at: number): number {
  const d = new Date(at);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
}

/** Where a budget is raised, in the user's terms. */
function howToRaise(bound: Bound): string {
  const api = `PUT /api/budgets/${bound.target}/${encodeURIComponent(bound.id)}`;
  switch (bound.target) {
    case "owner":
      return `An owner raises it under Settings → Budgets (${api}).`;
    case "user":
      return `An owner raises this user's daily budget under Settings → Budgets (${api}), or the call waits for the next UTC day.`;
    // Settings → Budgets is where these are set in the editor (one list for every budget).
    case "workflow":
      return `Raise the workflow's budget under Settings → Budgets (${api}); it cannot pass the owner's ceiling.`;
    case "agent":
      return `Raise the agent profile's budget under Settings → Budgets (${api}); it cannot pass the owner's ceiling.`;
    case "scene":
      return `Raise the scene's budget under Settings → Budgets (${api}); it cannot pass the owner's ceiling.`;
    default: {
      const never: never = bound.target;
      return never;
    }
  }
}

function setBy(bound: Bound): string {
  return bound.target === "owner" ? "the owner's ceiling" : `${bound.target} "${bound.id}"`;
}

function dollars(value: number): string {
  return `$${value.toFixed(6).replace(/0+$/, "").replace(/\.$/, "")}`;
}

/** What the calls in flight in this process hold of one budget scope (`BudgetGuard`'s reservations). */
interface Held {
  tokens: number;
  costUsd: number;
  calls: number;
}

/** A budget scope's key: its scope and the usage it sums. */
const keyOf = (check: ScopeCheck): string => `${check.scope}:${JSON.stringify(check.used)}`;

/** How often a check reads the stored usage again when calls ended while it read (see `beforeCall`). */
const MAX_REREADS = 5;

/**
 * Checks every LLM call before it is sent (`ProfileLlmService`'s `beforeCall`) against the budgets of its run, agent
 * conversation, scene and user-day: the usage stored so far, plus what the calls in flight in this process reserved,
 * plus the call's estimate must stay within each, or the call is refused (`BUDGET_EXCEEDED`) and never reaches the
 * provider. A call that passes reserves its estimate until it has ended and its usage is stored (`release`), so calls
 * made at once (parallel nodes, agents of one scene) cannot each pass a budget that only one of them fits. A
 * workflow's, agent's or scene's own budget only narrows the owner's ceiling: the narrower of the two holds, whatever
 * an editor stored. Reservations are this process's: in queue mode, workers' calls at the same moment are not counted
 * against each other's.
 */
export class BudgetGuard {
  private readonly held = new Map<string, Held>();
  /** Counts released reservations: a check that read the stored usage while one ended may have missed its usage. */
  private released = 0;

  constructor(
    private readonly budgets: Pick<Budgets, "getMany">,
    private readonly usage: UsageRepository,
    private readonly runs: Pick<RunFactsLookup, "of">,
  ) {}

  readonly beforeCall = async (call: LlmCallEstimate): Promise<LlmCallAllowance> => {
    const checks = await this.checksFor(call);
    if (checks.length === 0) return {};
    let stored: Array<{ totalTokens: number; costUsd: number | null } | undefined> = [];
    for (let read = 0; read <= MAX_REREADS; read++) {
      const releasedBefore = this.released;
      stored = (await Promise.all(checks.map((check) => this.usage.report({ ...check.used, groupBy: [] })))).map((rows) => rows[0]);
      // A call that ended while this read may have had its usage stored after the read and its reservation freed
      // before this check: it would count nowhere. Read again.
      if (this.released === releasedBefore) break;
    }
    // Nothing awaits from here to the reservation: each call in flight is counted once, in the store or as held.
    const notices: string[] = [];
    const keys = checks.map(keyOf);
    checks.forEach((check, i) => {
      const held = this.held.get(keys[i]!);
      const usedTokens = stored[i]?.totalTokens ?? 0;
      const usedCost = stored[i]?.costUsd ?? 0;
      const inFlight = (what: string) => (held ? ` and ${what} reserved by ${held.calls} call(s) in flight` : "");
      const words = SCOPE_WORDS[check.scope];
      if (check.tokens) {
        const left = check.tokens.value - usedTokens - (held?.tokens ?? 0);
        if (call.usage.totalTokens > left) {
          refuse(
            `Budget exceeded: ${words} token budget is ${check.tokens.value} (set by ${setBy(check.tokens)}); ${usedTokens} tokens are used${inFlight(`${held?.tokens ?? 0} tokens`)} and this call may use up to ${call.usage.totalTokens} more (its prompt estimated, its completion at maxTokens), so it was not sent.`,
            check.tokens,
          );
        }
        if (left - call.usage.totalTokens < check.tokens.value * LOW_BUDGET_SHARE)
          notices.push(`about ${Math.max(0, left - call.usage.totalTokens)} tokens of ${words} budget of ${check.tokens.value}`);
      }
      if (check.costUsd) {
        if (call.costUsd === undefined) {
          refuse(
            `Budget exceeded: ${words} cost budget is ${dollars(check.costUsd.value)} (set by ${setBy(check.costUsd)}), and LLM profile "${call.profileId}" has no prices, so the call's cost cannot be checked and it was not sent. Set the profile's prices under Settings → LLM profiles.`,
            check.costUsd,
          );
        }
        const left = check.costUsd.value - usedCost - (held?.costUsd ?? 0);
        if (call.costUsd > left) {
          refuse(
            `Budget exceeded: ${words} cost budget is ${dollars(check.costUsd.value)} (set by ${setBy(check.costUsd)}); ${dollars(usedCost)} is used${inFlight(dollars(held?.costUsd ?? 0))} and this call may cost up to ${dollars(call.costUsd)} more, so it was not sent.`,
            check.costUsd,
          );
        }
        if (left - call.costUsd < check.costUsd.value * LOW_BUDGET_SHARE) notices.push(`about ${dollars(Math.max(0, left - call.costUsd))} of ${words} budget of ${dollars(check.costUsd.value)}`);
      }
    });
    const release = this.reserve(keys, call);
    // Only an agent reads its context to plan: a workflow's own LLM node gets its prompt unchanged.
    if (notices.length === 0 || call.caller.conversationId === undefined) return { release };
    return { release, notice: `Budget running low: ${notices.join("; ")} left. Finish the task with few further steps, or tell the user the budget is nearly spent.` };
  };

  /** Holds the call's estimate in each of its scopes; the answer frees it (once). */
  private reserve(keys: readonly string[], call: LlmCallEstimate): () => void {
    for (const key of keys) {
      const held = this.held.get(key) ?? { tokens: 0, costUsd: 0, calls: 0 };
      held.tokens += call.usage.totalTokens;
      held.costUsd += call.costUsd ?? 0;
      held.calls += 1;
      this.held.set(key, held);
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.released++;
      for (const key of keys) {
        const held = this.held.get(key);
        if (!held) continue;
        held.calls -= 1;
        held.tokens -= call.usage.totalTokens;
        held.costUsd -= call.costUsd ?? 0;
        // The last call out removes the entry: no sums drifting from float rounding, no keys left behind.
        if (held.calls <= 0) this.held.delete(key);
      }
    };
  }

  private async checksFor(call: LlmCallEstimate): Promise<ScopeCheck[]> {
    const { caller } = call;
    const run = await this.runs.of(caller.runId);
    const userId = caller.userId ?? run?.createdBy;
    const keys: Array<{ target: BudgetTarget; id: string }> = [
      { target: "owner", id: "run" },
      { target: "owner", id: "conversation" },
      { target: "owner", id: "scene" },
      { target: "owner", id: "user-day" },
    ];
    if (run) keys.push({ target: "workflow", id: run.workflowId });
    if (caller.agentId !== undefined) keys.push({ target: "agent", id: caller.agentId });
    if (caller.sceneId !== undefined) keys.push({ target: "scene", id: caller.sceneId });
    if (userId !== undefined) keys.push({ target: "user", id: userId });
    const limits = await this.budgets.getMany(keys);
    const owner = (id: Scope) => ({ target: "owner" as const, id, limit: limits.get(`owner/${id}`) });
    const checks: ScopeCheck[] = [];
    if (caller.runId !== undefined && run) {
      checks.push({ scope: "run", ...narrowest({ target: "workflow", id: run.workflowId, limit: limits.get(`workflow/${run.workflowId}`) }, owner("run")), used: { runId: caller.runId } });
    }
    if (caller.conversationId !== undefined) {
      const agentId = caller.agentId ?? "";
      checks.push({
        scope: "conversation",
        ...narrowest({ target: "agent", id: agentId, limit: limits.get(`agent/${agentId}`) }, owner("conversation")),
        used: { conversationId: caller.conversationId },
      });
    }
    if (caller.sceneId !== undefined) {
      checks.push({ scope: "scene", ...narrowest({ target: "scene", id: caller.sceneId, limit: limits.get(`scene/${caller.sceneId}`) }, owner("scene")), used: { sceneId: caller.sceneId } });
    }
    if (userId !== undefined) {
      // The owner's limit for this user replaces the default for everyone (the owner set both).
      const own = limits.get(`user/${userId}`);
      const limit = own ?? limits.get("owner/user-day");
      const target: BudgetTarget = own ? "user" : "owner";
      const id = own ? userId : "user-day";
      const bound = (value: number | undefined): Bound | undefined => (value !== undefined ? { value, target, id } : undefined);
      const tokens = bound(limit?.tokens);
      const costUsd = bound(limit?.costUsd);
      checks.push({ scope: "user-day", ...(tokens ? { tokens } : {}), ...(costUsd ? { costUsd } : {}), used: { userId, from: startOfUtcDay(Date.now()) } });
    }
    return checks.filter((c) => c.tokens !== undefined || c.costUsd !== undefined);
  }
}

function refuse(message: string, bound: Bound): never {
  throw new LlmError({ code: "BUDGET_EXCEEDED", message, hint: howToRaise(bound) });
}
