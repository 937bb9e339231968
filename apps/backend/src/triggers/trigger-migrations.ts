import type { Migration } from "../storage/migrations.ts";
import { ddl } from "../storage/ddl.ts";

/**
 * The triggers' tables: which workflows are switched active (and by whom: their runs act for that user), each
 * trigger node's own state (a webhook's encrypted secret, the last fire), and the webhook signatures already
 * accepted (so a replay is refused by every API process until the signature's timestamp window has passed).
 */
export const TRIGGER_MIGRATIONS: readonly Migration[] = [
  {
    id: "triggers-001 active workflows, trigger state, accepted signatures",
    async up(db, engine) {
      const { time, run } = ddl(db, engine);
      await run(
        `CREATE TABLE trigger_activations (workflow_id text PRIMARY KEY, activated_by text NOT NULL, activated_at ${time} NOT NULL)`,
        `CREATE TABLE triggers (workflow_id text NOT NULL, node_id text NOT NULL, kind text NOT NULL, secret text, created_at ${time} NOT NULL, last_fired_at ${time}, last_run_id text, PRIMARY KEY (workflow_id, node_id))`,
        `CREATE TABLE webhook_replays (digest text PRIMARY KEY, expires_at ${time} NOT NULL)`,
        `CREATE INDEX webhook_replays_by_expiry ON webhook_replays (expires_at)`,
      );
    },
  },
  {
    // A schedule's next tick, and the config it was computed for (a save that changes the cron re-arms it). A process
    // fires a tick only after moving next_fire_at on from the value it read (compare-and-set): one process per tick.
    id: "triggers-002 schedules: next fire time",
    async up(db, engine) {
      const { time, run } = ddl(db, engine);
      await run(`ALTER TABLE triggers ADD COLUMN next_fire_at ${time}`, `ALTER TABLE triggers ADD COLUMN schedule text`, `CREATE INDEX triggers_by_next_fire ON triggers (next_fire_at)`);
    },
  },
  {
    // Each claimed tick, with the run recorded for it in the claim's own transaction: the primary key makes a second
    // run of a tick impossible, and `dispatched_at` tells a run handed over from one a dead process left behind.
    id: "triggers-003 schedules: claimed ticks",
    async up(db, engine) {
      const { time, run } = ddl(db, engine);
      await run(
        `CREATE TABLE schedule_ticks (workflow_id text NOT NULL, node_id text NOT NULL, tick ${time} NOT NULL, run_id text NOT NULL, claimed_at ${time} NOT NULL, dispatched_at ${time}, PRIMARY KEY (workflow_id, node_id, tick))`,
        `CREATE INDEX schedule_ticks_by_claim ON schedule_ticks (dispatched_at, claimed_at)`,
      );
    },
  },
];
