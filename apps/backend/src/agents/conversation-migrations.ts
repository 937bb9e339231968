import type { Migration } from "../storage/migrations.ts";
import { ddlStep } from "../storage/ddl.ts";

/** The conversations table's steps since the baseline (its first shape is core-001's). */
export const CONVERSATION_MIGRATIONS: readonly Migration[] = [
  // The conversation a fork continues from: a parent lists its forks by it. The fork's step and changes live in `data`.
  ddlStep("conversations-001 forks of agent conversations", () => [
    `ALTER TABLE conversations ADD COLUMN fork_of text`,
    `CREATE INDEX conversations_by_fork_of ON conversations (fork_of, created_at)`,
  ]),
];
