import type { Migration } from "../storage/migrations.ts";
import { ddl } from "../storage/ddl.ts";

/**
 * Approvals: one row per paused node of a waiting run (its request, who may answer, the deadline) and, once decided,
 * the decision, who gave it and when. A decision is one conditional update (`status = 'pending'`), so of two answers,
 * two processes' timeout sweeps, or a link used twice, exactly one decides; `resumed_at` marks a decision whose run was
 * handed on to resume (one left unmarked by a dying process is resumed by the next sweep).
 */
export const APPROVAL_MIGRATIONS: readonly Migration[] = [
  {
    id: "approvals-001 approvals",
    async up(db, engine) {
      const { time, run } = ddl(db, engine);
      await run(
        `CREATE TABLE approvals (id text PRIMARY KEY, run_id text NOT NULL, node_id text NOT NULL, workflow_id text NOT NULL, request text NOT NULL, role text NOT NULL, status text NOT NULL, deadline ${time}, created_at ${time} NOT NULL, decision text, decided_by text, decided_at ${time}, comment text, resumed_at ${time}, UNIQUE (run_id, node_id))`,
        `CREATE INDEX approvals_by_status_deadline ON approvals (status, deadline)`,
        `CREATE INDEX approvals_by_run ON approvals (run_id)`,
      );
    },
  },
  {
    // A second kind of subject: an agent's conversation waiting on an `ask_approval` call (`kind` 'agent'; `run_id`
    // then holds the conversation id, `workflow_id` the agent id, `node_id` the asking step as `step-<n>`).
    id: "approvals-002 agent conversations",
    async up(db, engine) {
      await ddl(db, engine).run(`ALTER TABLE approvals ADD COLUMN kind text NOT NULL DEFAULT 'run'`, `ALTER TABLE approvals ADD COLUMN conversation_id text`);
    },
  },
];
