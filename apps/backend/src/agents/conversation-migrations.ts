import type { Migration } from "../storage/migrations.ts";
import { ddl } from "../storage/ddl.ts";

/** The conversations table's steps since the baseline (its first shape is core-001's). */
export const CONVERSATION_MIGRATIONS: readonly Migration[] = [
  {
    id: "conversations-001 forks of agent conversations",
    async up(db, engine) {
      // The conversation a fork continues from: a parent lists its forks by it. The fork's step and changes live in `data`.
      await ddl(db, engine).run(`ALTER TABLE conversations ADD COLUMN fork_of text`, `CREATE INDEX conversations_by_fork_of ON conversations (fork_of, created_at)`);
    },
  },
];
