import { TriggerKindSchema, type TriggerKind } from "@weft/types";
import type { Selectable } from "kysely";
import type { Int64Column } from "../storage/ddl.ts";
import { num, optionalNum, present } from "../storage/row-values.ts";
import { powerOfTwoChunks } from "../storage/prepared-query.ts";
import { Table } from "../storage/table.ts";
import { FireBatch, type FireRow } from "./fire-batch.ts";

/** Signatures per insert statement: chunk sizes 1, 2, 4 … 64, so at most seven statement shapes. */
const REPLAYS_PER_INSERT = 64;

interface TriggerTables {
  trigger_activations: { workflow_id: string; activated_by: string; activated_at: Int64Column };
  triggers: {
    workflow_id: string;
    node_id: string;
    kind: string;
    /** The webhook's secret, sealed by the SecretBox (`secrets/`); null for kinds without one. */
    secret: string | null;
    created_at: Int64Column;
    last_fired_at: Int64Column | null;
    last_run_id: string | null;
    /** A schedule's next tick (epoch ms); null when it has none (or for a webhook). */
    next_fire_at: Int64Column | null;
    /** The schedule config `next_fire_at` was computed for (`scheduleKey`), so a changed one is re-armed. */
    schedule: string | null;
  };
  webhook_replays: { digest: string; expires_at: Int64Column };
  schedule_ticks: { workflow_id: string; node_id: string; tick: Int64Column; run_id: string; claimed_at: Int64Column; dispatched_at: Int64Column | null };
  /** The workflows' own table (`../workflows/`), of which a hook request reads only which stored revision is current. */
  workflows: { id: string; revision: number; created_at: Int64Column; updated_at: Int64Column };
}

/** A claimed tick and the run recorded for it. */
export interface ClaimedTick {
  workflowId: string;
  nodeId: string;
  tick: number;
  runId: string;
  claimedAt: number;
}

export interface Activation {
  workflowId: string;
  /** The editor who switched it on: its runs act for them (their role decides what credentials they may use). */
  activatedBy: string;
  activatedAt: number;
}

export interface TriggerState {
  workflowId: string;
  nodeId: string;
  kind: TriggerKind;
  /** Sealed; `TriggerService` opens it only to verify a request. */
  sealedSecret?: string;
  createdAt: number;
  lastFiredAt?: number;
  lastRunId?: string;
  /** A schedule's next tick. */
  nextFireAt?: number;
  /** The schedule config the next tick was computed for. */
  scheduleKey?: string;
}

/** Which stored revision of a workflow is current: a save, or a workflow made again under its id, is another key. */
export const storedRevisionKey = (createdAt: number, updatedAt: number, revision: number): string => `${createdAt}:${updatedAt}:${revision}`;

/** A signature to remember until `expiresAt`. */
export interface ReplayRow {
  digest: string;
  expiresAt: number;
}

/** A schedule of an active workflow whose next tick is near, with who its runs act for. */
export interface DueSchedule {
  workflowId: string;
  nodeId: string;
  nextFireAt: number;
  scheduleKey: string;
  activatedBy: string;
  activatedAt: number;
}

/** Activations, trigger state and accepted webhook signatures, on both engines. */
export class TriggerTable extends Table<TriggerTables> {
  private readonly fires = new FireBatch((rows) => this.storeFires(rows));

  /**
   * A hook request's one read: the workflow's activation, the node's state and which stored revision of the workflow
   * is current (`storedRevision`: `<created_at>:<updated_at>:<revision>`, undefined when there is none), so a kept
   * copy of the workflow serves the request only while it is the stored one. Undefined when the workflow is not
   * switched on. The columns are scalar subqueries on primary keys rather than joins: SQLite ran the join with bound
   * values in ~50–100 µs, these in ~10 µs.
   */
  async activeState(workflowId: string, nodeId: string): Promise<{ activation: Activation; state: TriggerState | undefined; storedRevision: string | undefined } | undefined> {
    const [row] = await this.hot.rows(
      "active-state",
      (slot) =>
        this.db
          .selectFrom("trigger_activations as a")
          .select((eb) => {
            const column = <C extends keyof TriggerTables["triggers"]>(name: C) =>
              eb.selectFrom("triggers as t").select(`t.${name}`).where("t.workflow_id", "=", slot(0)).where("t.node_id", "=", slot(1)).as(name);
            const stored = <C extends "revision" | "created_at" | "updated_at">(name: C) => eb.selectFrom("workflows as w").select(`w.${name}`).where("w.id", "=", slot(0)).as(`workflow_${name}`);
            return [
              "a.activated_by",
              "a.activated_at",
              column("node_id"),
              column("kind"),
              column("secret"),
              column("created_at"),
              column("last_fired_at"),
              column("last_run_id"),
              column("next_fire_at"),
              column("schedule"),
              stored("created_at"),
              stored("updated_at"),
              stored("revision"),
            ];
          })
          .where("a.workflow_id", "=", slot(0)),
      [workflowId, nodeId],
    );
    if (!row) return undefined;
    const activation = { workflowId, activatedBy: row.activated_by, activatedAt: num(row.activated_at) };
    const storedRevision =
      row.workflow_created_at === null || row.workflow_updated_at === null || row.workflow_revision === null
        ? undefined
        : storedRevisionKey(num(row.workflow_created_at), num(row.workflow_updated_at), row.workflow_revision);
    if (row.node_id === null || row.kind === null || row.created_at === null) return { activation, state: undefined, storedRevision };
    const state = decodeState({ ...row, workflow_id: workflowId, node_id: row.node_id, kind: row.kind, created_at: row.created_at });
    return { activation, state, storedRevision };
  }

  /** A workflow's activation (a save re-arms its schedules from it). */
  async activation(workflowId: string): Promise<Activation | undefined> {
    const [row] = await this.hot.rows("activation", (slot) => this.db.selectFrom("trigger_activations").selectAll().where("workflow_id", "=", slot(0)), [workflowId]);
    return row ? { workflowId: row.workflow_id, activatedBy: row.activated_by, activatedAt: num(row.activated_at) } : undefined;
  }

  async activations(): Promise<Activation[]> {
    const rows = await this.db.selectFrom("trigger_activations").selectAll().execute();
    return rows.map((row) => ({ workflowId: row.workflow_id, activatedBy: row.activated_by, activatedAt: num(row.activated_at) }));
  }

  async activate(activation: Activation): Promise<void> {
    await this.upsertRows("trigger_activations", ["workflow_id"], [{ workflow_id: activation.workflowId, activated_by: activation.activatedBy, activated_at: activation.activatedAt }]);
  }

  async deactivate(workflowId: string): Promise<void> {
    await this.db.deleteFrom("trigger_activations").where("workflow_id", "=", workflowId).execute();
  }

  async state(workflowId: string, nodeId: string): Promise<TriggerState | undefined> {
    const [row] = await this.hot.rows("state", (slot) => this.db.selectFrom("triggers").selectAll().where("workflow_id", "=", slot(0)).where("node_id", "=", slot(1)), [workflowId, nodeId]);
    return row ? decodeState(row) : undefined;
  }

  async states(): Promise<TriggerState[]> {
    return (await this.db.selectFrom("triggers").selectAll().execute()).map(decodeState);
  }

  /** Stores a node's (new) secret; its fire history is kept. */
  async putSecret(workflowId: string, nodeId: string, kind: TriggerKind, sealedSecret: string, at: number): Promise<void> {
    await this.db
      .insertInto("triggers")
      .values({ workflow_id: workflowId, node_id: nodeId, kind, secret: sealedSecret, created_at: at, last_fired_at: null, last_run_id: null })
      .onConflict((oc) => oc.columns(["workflow_id", "node_id"]).doUpdateSet({ secret: sealedSecret, kind, created_at: at }))
      .execute();
  }

  /**
   * Records a trigger's last fire and its run. Fires arriving together are written in one commit, each trigger's
   * latest only (`FireBatch`); resolves once it is stored.
   */
  recordFire(workflowId: string, nodeId: string, at: number, runId: string): Promise<void> {
    return this.fires.record({ workflowId, nodeId, at, runId });
  }

  /** Stores each row's fire on its trigger (at most one row per trigger), all or none; joins the caller's transaction. */
  async storeFires(rows: readonly FireRow[]): Promise<void> {
    const one = (row: FireRow) =>
      this.hot.run(
        "fired",
        (slot) =>
          this.db
            .updateTable("triggers")
            .set({ last_fired_at: slot(0), last_run_id: slot(1) })
            .where("workflow_id", "=", slot(2))
            .where("node_id", "=", slot(3)),
        [row.at, row.runId, row.workflowId, row.nodeId],
      );
    const all = async () => {
      for (const row of rows) await one(row);
    };
    await (rows.length === 1 ? all() : this.engine.transaction(all));
  }

  /** Stores a schedule node's next tick for its config (the row made when missing; its fire history kept). */
  async armSchedule(workflowId: string, nodeId: string, scheduleKey: string, nextFireAt: number | undefined, at: number): Promise<void> {
    const next = nextFireAt ?? null;
    await this.db
      .insertInto("triggers")
      .values({ workflow_id: workflowId, node_id: nodeId, kind: "schedule", secret: null, created_at: at, last_fired_at: null, last_run_id: null, next_fire_at: next, schedule: scheduleKey })
      .onConflict((oc) => oc.columns(["workflow_id", "node_id"]).doUpdateSet({ kind: "schedule", schedule: scheduleKey, next_fire_at: next }))
      .execute();
  }

  /**
   * The schedules of active workflows whose next tick is at or before `until`, earliest first: one indexed query per
   * scheduler pass, whatever the number of schedules.
   */
  async dueSchedules(until: number): Promise<DueSchedule[]> {
    const rows = await this.hot.rows(
      "due-schedules",
      (slot) =>
        this.db
          .selectFrom("triggers")
          .innerJoin("trigger_activations", "trigger_activations.workflow_id", "triggers.workflow_id")
          .select(["triggers.workflow_id", "triggers.node_id", "triggers.next_fire_at", "triggers.schedule", "trigger_activations.activated_by", "trigger_activations.activated_at"])
          .where("triggers.kind", "=", "schedule")
          .where("triggers.next_fire_at", "<=", slot(0))
          .orderBy("triggers.next_fire_at"),
      [until],
    );
    return rows.flatMap((row) =>
      row.next_fire_at === null || row.schedule === null
        ? []
        : [{ workflowId: row.workflow_id, nodeId: row.node_id, nextFireAt: num(row.next_fire_at), scheduleKey: row.schedule, activatedBy: row.activated_by, activatedAt: num(row.activated_at) }],
    );
  }

  /**
   * Moves a schedule's next tick from `expected` to `next` only if it still is `expected` and its workflow is on: true
   * for exactly one of the processes that read `expected` (the database decides), which alone fires the ticks in between.
   */
  async claimTick(workflowId: string, nodeId: string, expected: number, next: number | undefined, scheduleKey: string): Promise<boolean> {
    const result = await this.db
      .updateTable("triggers")
      .set({ next_fire_at: next ?? null, schedule: scheduleKey })
      .where("workflow_id", "=", workflowId)
      .where("node_id", "=", nodeId)
      .where("next_fire_at", "=", expected)
      // Switched off meanwhile (after the due list was read): nothing is claimed, so nothing fires.
      .where((eb) => eb.exists(eb.selectFrom("trigger_activations").select("trigger_activations.workflow_id").where("trigger_activations.workflow_id", "=", workflowId)))
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }

  /**
   * `claimTick` and, in the same transaction, one `schedule_ticks` row per tick and `recordRuns` (which records their
   * runs `queued`): all of it is stored or none, so a tick whose claim is stored has its run, whenever the process dies.
   * False (nothing stored) when another process claimed it first.
   */
  async claimTicks(
    claim: { workflowId: string; nodeId: string; expected: number; next: number | undefined; scheduleKey: string },
    ticks: ReadonlyArray<{ tick: number; runId: string }>,
    at: number,
    recordRuns: () => Promise<void>,
  ): Promise<boolean> {
    return this.engine.transaction(async () => {
      if (!(await this.claimTick(claim.workflowId, claim.nodeId, claim.expected, claim.next, claim.scheduleKey))) return false;
      if (ticks.length > 0) {
        await this.db
          .insertInto("schedule_ticks")
          .values(ticks.map((t) => ({ workflow_id: claim.workflowId, node_id: claim.nodeId, tick: t.tick, run_id: t.runId, claimed_at: at, dispatched_at: null })))
          .execute();
      }
      await recordRuns();
      return true;
    });
  }

  async markDispatched(workflowId: string, nodeId: string, tick: number, at: number): Promise<void> {
    await this.db.updateTable("schedule_ticks").set({ dispatched_at: at }).where("workflow_id", "=", workflowId).where("node_id", "=", nodeId).where("tick", "=", tick).execute();
  }

  /** Ticks claimed before `claimedBefore` whose run was never handed over (their process died, or the queue was down). */
  async undispatchedTicks(claimedBefore: number, limit: number): Promise<ClaimedTick[]> {
    const rows = await this.db.selectFrom("schedule_ticks").selectAll().where("dispatched_at", "is", null).where("claimed_at", "<", claimedBefore).orderBy("claimed_at").limit(limit).execute();
    return rows.map((r) => ({ workflowId: r.workflow_id, nodeId: r.node_id, tick: num(r.tick), runId: r.run_id, claimedAt: num(r.claimed_at) }));
  }

  /** Takes over an undispatched tick (compare-and-set on its claim time): true for one of the processes that try. */
  async retakeTick(tick: ClaimedTick, at: number): Promise<boolean> {
    const result = await this.db
      .updateTable("schedule_ticks")
      .set({ claimed_at: at })
      .where("workflow_id", "=", tick.workflowId)
      .where("node_id", "=", tick.nodeId)
      .where("tick", "=", tick.tick)
      .where("claimed_at", "=", tick.claimedAt)
      .where("dispatched_at", "is", null)
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }

  /** Forgets ticks claimed before `before`: the stored next tick has long moved past them, so none is claimed again. */
  async pruneTicks(before: number): Promise<void> {
    await this.db.deleteFrom("schedule_ticks").where("claimed_at", "<", before).execute();
  }

  /**
   * Remembers signatures until their `expiresAt`; answers the digests stored now, leaving out those any process stored
   * before (the primary key decides, so two API processes cannot both accept one request). Each digest at most once.
   * A prepared statement per chunk size (a Kysely build per batch was ~3% of a hook request's CPU in bench:webhook);
   * more than one chunk, one commit (or the caller's transaction).
   */
  async acceptReplays(rows: readonly ReplayRow[]): Promise<Set<string>> {
    const stored = new Set<string>();
    const insert = async (chunk: ReplayRow[]) => {
      const inserted = await this.hot.rows(
        `replays ${chunk.length}`,
        (slot) =>
          this.db
            .insertInto("webhook_replays")
            .values(chunk.map((_, n) => ({ digest: slot(2 * n), expires_at: slot(2 * n + 1) })))
            .onConflict((oc) => oc.column("digest").doNothing())
            .returning("digest"),
        chunk.flatMap((r) => [r.digest, r.expiresAt]),
      );
      for (const r of inserted) stored.add(r.digest);
    };
    const chunks = [...powerOfTwoChunks(rows, REPLAYS_PER_INSERT)];
    const all = async () => {
      for (const chunk of chunks) await insert(chunk);
    };
    await (chunks.length === 1 ? all() : this.engine.transaction(all));
    return stored;
  }

  /** Signatures whose window has passed: their timestamps are refused as too old anyway. */
  async pruneReplays(now: number): Promise<void> {
    await this.db.deleteFrom("webhook_replays").where("expires_at", "<", now).execute();
  }
}

function decodeState(row: Selectable<TriggerTables["triggers"]>): TriggerState {
  return {
    workflowId: row.workflow_id,
    nodeId: row.node_id,
    kind: TriggerKindSchema.parse(row.kind),
    createdAt: num(row.created_at),
    ...present({ sealedSecret: row.secret, lastFiredAt: optionalNum(row.last_fired_at), lastRunId: row.last_run_id, nextFireAt: optionalNum(row.next_fire_at), scheduleKey: row.schedule }),
  };
}
