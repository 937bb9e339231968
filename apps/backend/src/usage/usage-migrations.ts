import type { Migration } from "../storage/migrations.ts";
import { ddl } from "../storage/ddl.ts";

/**
 * One row per LLM call, written when the call is answered: who made it (run, node invocation, workflow, agent
 * conversation, scene, user), which profile and model, its tokens and its cost at the prices of that moment. Roll-ups
 * are sums over an index; `day` (UTC, YYYY-MM-DD) is stored so a per-user-per-day sum (a budget's) reads one index range.
 */
export const USAGE_MIGRATIONS: readonly Migration[] = [
  {
    id: "usage-001 llm usage per call",
    async up(db, engine) {
      const { identity, time, int64, flag, no, real, run } = ddl(db, engine);
      await run(
        `CREATE TABLE llm_usage (seq ${identity}, at ${time} NOT NULL, day text NOT NULL, run_id text, node_id text, invocation_id text, workflow_id text, ` +
          `agent_id text, conversation_id text, scene_id text, user_id text, profile_id text NOT NULL, model text NOT NULL, ` +
          `prompt_tokens ${int64} NOT NULL, completion_tokens ${int64} NOT NULL, cached_tokens ${int64} NOT NULL, reasoning_tokens ${int64} NOT NULL, ` +
          `total_tokens ${int64} NOT NULL, cost_usd ${real}, estimated ${flag} NOT NULL DEFAULT ${no})`,
        `CREATE INDEX llm_usage_by_run ON llm_usage (run_id)`,
        `CREATE INDEX llm_usage_by_conversation ON llm_usage (conversation_id)`,
        `CREATE INDEX llm_usage_by_scene ON llm_usage (scene_id)`,
        `CREATE INDEX llm_usage_by_user_day ON llm_usage (user_id, day)`,
        `CREATE INDEX llm_usage_by_at ON llm_usage (at)`,
      );
    },
  },
];
