import type { Migration } from "./storage/migrations.ts";
import { CORE_MIGRATIONS } from "./storage/core-migrations.ts";
import { BUILDER_MIGRATIONS } from "./builder/storage/builder-migration.ts";
import { SCENE_MIGRATIONS } from "./scenes/scene-migration.ts";
import { PAYLOAD_MIGRATIONS } from "./events/payload-store.ts";
import { ACCOUNT_MIGRATIONS } from "./accounts/account-migrations.ts";
import { AGENT_CHANGE_MIGRATIONS } from "./agents/agent-change-log.ts";
import { VERSION_MIGRATIONS } from "./storage/document-versions.ts";
import { RUN_MIGRATIONS } from "./events/run-migrations.ts";
import { USAGE_MIGRATIONS } from "./usage/usage-migrations.ts";
import { BUDGET_MIGRATIONS } from "./usage/budget-migrations.ts";
import { LLM_PRICE_MIGRATIONS } from "./llm/llm-profile-repository.ts";
import { TRIGGER_MIGRATIONS } from "./triggers/trigger-migrations.ts";
import { CONVERSATION_MIGRATIONS } from "./agents/conversation-migrations.ts";
import { APPROVAL_MIGRATIONS } from "./approvals/approval-migrations.ts";
import { EVAL_MIGRATIONS } from "./evals/eval-migrations.ts";
import { A2A_TASK_MIGRATIONS } from "./a2a/a2a-task-migrations.ts";
import { SCENE_SUITE_MIGRATIONS } from "./evals/scene-suite-migrations.ts";

/**
 * Every table of the server, in the order the steps run: the storage's core tables first, then each
 * module's list (each module owns its tables and exports its list; storage/ imports none of them).
 * The API process, the worker and tests that open storage with domain tables give this to
 * `openStorage({ …, migrations: MIGRATIONS })`.
 *
 * BASELINE_MIGRATIONS make e5dc891's schema (storage/fixtures/, checked by storage/schema-equality.test.ts); a table
 * or column added since is a step of its module's own list, appended to MIGRATIONS after them.
 */
export const BASELINE_MIGRATIONS: readonly Migration[] = [...CORE_MIGRATIONS, ...BUILDER_MIGRATIONS, ...SCENE_MIGRATIONS, ...PAYLOAD_MIGRATIONS, ...ACCOUNT_MIGRATIONS, ...AGENT_CHANGE_MIGRATIONS];

export const MIGRATIONS: readonly Migration[] = [
  ...BASELINE_MIGRATIONS,
  ...VERSION_MIGRATIONS,
  ...RUN_MIGRATIONS,
  ...USAGE_MIGRATIONS,
  ...LLM_PRICE_MIGRATIONS,
  ...TRIGGER_MIGRATIONS,
  ...BUDGET_MIGRATIONS,
  ...CONVERSATION_MIGRATIONS,
  ...APPROVAL_MIGRATIONS,
  ...EVAL_MIGRATIONS,
  ...A2A_TASK_MIGRATIONS,
  ...SCENE_SUITE_MIGRATIONS,
];
