import { sql, type Generated, type Insertable } from "kysely";
import type { Int64Column } from "../storage/ddl.ts";
import { num, optionalNum } from "../storage/row-values.ts";
import { ID_LIST_CHUNK, Table } from "../storage/table.ts";
import { RunInsertBatch } from "../events/run-insert-batch.ts";
import type { UsageGroup, UsageQuery, UsageRecord, UsageRow } from "./usage-schemas.ts";

interface UsageTable {
  seq: Generated<Int64Column>;
  at: Int64Column;
  day: string;
  run_id: string | null;
  node_id: string | null;
  invocation_id: string | null;
  workflow_id: string | null;
  agent_id: string | null;
  conversation_id: string | null;
  scene_id: string | null;
  user_id: string | null;
  profile_id: string;
  model: string;
  prompt_tokens: Int64Column;
  completion_tokens: Int64Column;
  cached_tokens: Int64Column;
  reasoning_tokens: Int64Column;
  total_tokens: Int64Column;
  cost_usd: number | null;
  estimated: number | boolean;
}

/** The column each group key reads, and the field it is answered as. */
const GROUP_COLUMNS = {
  day: "day",
  user: "user_id",
  profile: "profile_id",
  model: "model",
  workflow: "workflow_id",
  agent: "agent_id",
  run: "run_id",
  conversation: "conversation_id",
  scene: "scene_id",
} as const satisfies Record<UsageGroup, keyof UsageTable>;

const FILTER_COLUMNS = {
  userId: "user_id",
  runId: "run_id",
  conversationId: "conversation_id",
  sceneId: "scene_id",
  workflowId: "workflow_id",
  agentId: "agent_id",
  profileId: "profile_id",
} as const satisfies Partial<Record<keyof UsageQuery, keyof UsageTable>>;

/** The UTC day of an epoch-millisecond time, as the `day` column holds it. */
export function utcDay(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** A call's row as stored. */
function usageRow(record: UsageRecord): Insertable<UsageTable> {
  return {
    at: record.at,
    day: utcDay(record.at),
    run_id: record.runId ?? null,
    node_id: record.nodeId ?? null,
    invocation_id: record.invocationId ?? null,
    workflow_id: record.workflowId ?? null,
    agent_id: record.agentId ?? null,
    conversation_id: record.conversationId ?? null,
    scene_id: record.sceneId ?? null,
    user_id: record.userId ?? null,
    profile_id: record.profileId,
    model: record.model,
    prompt_tokens: record.usage.promptTokens,
    completion_tokens: record.usage.completionTokens,
    cached_tokens: record.usage.cachedTokens ?? 0,
    reasoning_tokens: record.usage.reasoningTokens ?? 0,
    total_tokens: record.usage.totalTokens,
    cost_usd: record.costUsd ?? null,
    // A boolean on both engines: SQLite stores it as 1/0.
    estimated: record.usage.estimated === true,
  };
}

/** The LLM usage records, on both engines: one row per call, summed on request. */
export class UsageRepository extends Table<{ llm_usage: UsageTable }> {
  /** Calls answered while a write is under way (a worker's concurrent runs) share the next insert and its commit. */
  private readonly inserts = new RunInsertBatch<Insertable<UsageTable>>((rows) => this.insert(rows));

  /** Resolves once the call's row is stored. */
  async record(record: UsageRecord): Promise<void> {
    const row = usageRow(record);
    // PostgreSQL only, as RunTable does: there a commit per call was a round trip each; inside a caller's transaction the row is its own.
    if (this.engine.sql.engine === "postgres" && !this.engine.inTransaction()) return this.inserts.add(row);
    await this.insert([row]);
  }

  private async insert(rows: Insertable<UsageTable>[]): Promise<void> {
    await this.insertRows("llm_usage", rows);
  }

  /**
   * Tokens and cost per run, for many runs in one query (an eval run's cases); a run without calls is absent.
   * `costUsd` is null when a call's price is unknown (a partial sum never passes for the whole).
   */
  async totalsByRun(runIds: readonly string[]): Promise<Map<string, { tokens: number; costUsd: number | null }>> {
    const totals = new Map<string, { tokens: number; costUsd: number | null }>();
    for (let i = 0; i < runIds.length; i += ID_LIST_CHUNK) {
      const rows = await this.db
        .selectFrom("llm_usage")
        .where("run_id", "in", runIds.slice(i, i + ID_LIST_CHUNK))
        .select("run_id")
        .select((eb) => [
          eb.fn.countAll().as("calls"),
          eb.fn.coalesce(eb.fn.sum("total_tokens"), sql.lit(0)).as("total_tokens"),
          eb.fn.sum("cost_usd").as("cost_usd"),
          eb.fn.count("cost_usd").as("priced_calls"),
        ])
        .groupBy("run_id")
        .execute();
      for (const row of rows) {
        if (row.run_id === null) continue;
        const calls = num(row.calls);
        totals.set(row.run_id, { tokens: num(row.total_tokens), costUsd: calls > num(row.priced_calls) ? null : (optionalNum(row.cost_usd) ?? 0) });
      }
    }
    return totals;
  }

  /** Sums of the rows `query` selects, one row per combination of its `groupBy` keys (one row in all without keys), largest cost first. */
  async report(query: UsageQuery): Promise<UsageRow[]> {
    const groups = query.groupBy ?? [];
    let q = this.db.selectFrom("llm_usage");
    if (query.from !== undefined) q = q.where("at", ">=", query.from);
    if (query.to !== undefined) q = q.where("at", "<", query.to);
    for (const [key, column] of Object.entries(FILTER_COLUMNS) as Array<[keyof typeof FILTER_COLUMNS, (typeof FILTER_COLUMNS)[keyof typeof FILTER_COLUMNS]]>) {
      const value = query[key];
      if (value !== undefined) q = q.where(column, "=", value);
    }
    const columns = groups.map((g) => GROUP_COLUMNS[g]);
    const rows = await q
      .select(columns)
      .select((eb) => [
        eb.fn.countAll().as("calls"),
        eb.fn.coalesce(eb.fn.sum("prompt_tokens"), sql.lit(0)).as("prompt_tokens"),
        eb.fn.coalesce(eb.fn.sum("completion_tokens"), sql.lit(0)).as("completion_tokens"),
        eb.fn.coalesce(eb.fn.sum("cached_tokens"), sql.lit(0)).as("cached_tokens"),
        eb.fn.coalesce(eb.fn.sum("reasoning_tokens"), sql.lit(0)).as("reasoning_tokens"),
        eb.fn.coalesce(eb.fn.sum("total_tokens"), sql.lit(0)).as("total_tokens"),
        eb.fn.sum("cost_usd").as("cost_usd"),
        eb.fn.count("cost_usd").as("priced_calls"),
        sql<number>`sum(case when estimated then 1 else 0 end)`.as("estimated_calls"),
      ])
      .$if(columns.length > 0, (qb) => qb.groupBy(columns))
      .execute();
    const out = rows.map((row) => {
      const r = row as Record<string, unknown>;
      const calls = num(r.calls);
      const costUsd = optionalNum(r.cost_usd);
      const answer: UsageRow = {
        calls,
        promptTokens: num(r.prompt_tokens),
        completionTokens: num(r.completion_tokens),
        cachedTokens: num(r.cached_tokens),
        reasoningTokens: num(r.reasoning_tokens),
        totalTokens: num(r.total_tokens),
        // Calls at unknown prices are left out of the cost and counted, so a partial sum never passes for the whole.
        costUsd: costUsd ?? null,
        unpricedCalls: calls - num(r.priced_calls),
        estimatedCalls: num(r.estimated_calls ?? 0),
      };
      groups.forEach((g) => {
        const value = r[GROUP_COLUMNS[g]];
        answer[g] = typeof value === "string" ? value : null;
      });
      return answer;
    });
    // With no rows at all, a total is zero calls (SQL answers one row of zeros; keep it so callers read one shape).
    return out.filter((row) => groups.length === 0 || row.calls > 0).sort((a, b) => (b.costUsd ?? 0) - (a.costUsd ?? 0) || b.totalTokens - a.totalTokens);
  }
}
