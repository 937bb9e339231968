import { ApprovalDecisionSchema, ApprovalRequestSchema, ApprovalRoleSchema, type ApprovalDecision, type ApprovalRequest } from "@weft/types";
import type { Generated, Selectable } from "kysely";
import type { Int64Column } from "../storage/ddl.ts";
import { num, optionalNum, present } from "../storage/row-values.ts";
import { Table } from "../storage/table.ts";

interface ApprovalTables {
  approvals: {
    id: string;
    run_id: string;
    node_id: string;
    workflow_id: string;
    /** The node's ApprovalRequest as JSON (redacted like every runtime record). */
    request: string;
    role: string;
    status: string;
    deadline: Int64Column | null;
    created_at: Int64Column;
    decision: string | null;
    decided_by: string | null;
    decided_at: Int64Column | null;
    comment: string | null;
    resumed_at: Int64Column | null;
    /** `run` (a `core:approval` node) or `agent` (an `ask_approval` call: `run_id` is then the conversation id). */
    kind: Generated<string>;
    conversation_id: string | null;
  };
}

/** What waits on an approval: a run's `core:approval` node, or an agent's conversation at its `ask_approval` step. */
export type ApprovalSubject = { kind: "run" } | { kind: "agent"; conversationId: string; agentId: string; step: number };

export interface Approval {
  id: string;
  /** The run id; for an agent's approval, its conversation id. */
  runId: string;
  subject: ApprovalSubject;
  nodeId: string;
  workflowId: string;
  request: ApprovalRequest;
  /** `closed`: its run was cancelled while it waited; nobody may decide it. */
  status: "pending" | "decided" | "closed";
  /** When the timeout takes the default decision (epoch ms); absent: never. */
  deadline?: number;
  createdAt: number;
  decision?: ApprovalDecision;
  decidedBy?: string;
  decidedAt?: number;
  comment?: string;
}

/** A decision to store: what, by whom, when. */
export interface DecisionRecord {
  decision: ApprovalDecision;
  decidedBy: string;
  decidedAt: number;
  comment?: string;
}

/** The approvals, on both engines. */
export class ApprovalTable extends Table<ApprovalTables> {
  /** Stores new requests; a node that already has one (asked before) keeps it. */
  async addPending(rows: readonly Omit<Approval, "status">[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db
      .insertInto("approvals")
      .values(
        rows.map((a) => ({
          id: a.id,
          run_id: a.runId,
          node_id: a.nodeId,
          workflow_id: a.workflowId,
          request: this.redact(a.request),
          role: a.request.role,
          status: "pending",
          deadline: a.deadline ?? null,
          created_at: a.createdAt,
          decision: null,
          decided_by: null,
          decided_at: null,
          comment: null,
          resumed_at: null,
          kind: a.subject.kind,
          conversation_id: a.subject.kind === "agent" ? a.subject.conversationId : null,
        })),
      )
      .onConflict((oc) => oc.columns(["run_id", "node_id"]).doNothing())
      .execute();
  }

  async get(id: string): Promise<Approval | undefined> {
    const row = await this.db.selectFrom("approvals").selectAll().where("id", "=", id).executeTakeFirst();
    return row ? decode(row) : undefined;
  }

  async byRun(runId: string): Promise<Approval[]> {
    return (await this.db.selectFrom("approvals").selectAll().where("run_id", "=", runId).orderBy("created_at").execute()).map(decode);
  }

  /** Pending approvals, oldest first (`limit` at most). */
  async pending(limit: number): Promise<Approval[]> {
    return (await this.db.selectFrom("approvals").selectAll().where("status", "=", "pending").orderBy("created_at").orderBy("id").limit(limit).execute()).map(decode);
  }

  /** Pending approvals whose deadline has passed, oldest deadline first. */
  async overdue(now: number, limit: number): Promise<Approval[]> {
    return (
      await this.db.selectFrom("approvals").selectAll().where("status", "=", "pending").where("deadline", "is not", null).where("deadline", "<=", now).orderBy("deadline").limit(limit).execute()
    ).map(decode);
  }

  /** Decides a pending approval: true for the one caller that did, false when it was decided already (or does not exist). */
  async decide(id: string, record: DecisionRecord): Promise<boolean> {
    const result = await this.db
      .updateTable("approvals")
      .set({ status: "decided", decision: record.decision, decided_by: record.decidedBy, decided_at: record.decidedAt, comment: record.comment ?? null })
      .where("id", "=", id)
      .where("status", "=", "pending")
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Closes a cancelled run's pending approvals (`decided_by` says why). */
  async closePending(runId: string, at: number): Promise<void> {
    await this.db.updateTable("approvals").set({ status: "closed", decided_by: "cancelled", decided_at: at }).where("run_id", "=", runId).where("status", "=", "pending").execute();
  }

  /**
   * Claims a run's decided, not yet handed-on approvals for resuming it: true for the one caller that claimed any.
   * `release` undoes it when the run could not be resumed then (it was still executing): the next sweep tries again.
   */
  async claimResume(runId: string, now: number): Promise<boolean> {
    const result = await this.db.updateTable("approvals").set({ resumed_at: now }).where("run_id", "=", runId).where("status", "=", "decided").where("resumed_at", "is", null).executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async releaseResume(runId: string, claimedAt: number): Promise<void> {
    await this.db.updateTable("approvals").set({ resumed_at: null }).where("run_id", "=", runId).where("resumed_at", "=", claimedAt).execute();
  }

  /** Runs (and agent conversations) with a decision not handed on yet (its process died between deciding and resuming, or the run was busy). */
  async unresumedRuns(limit: number): Promise<Array<{ runId: string; kind: ApprovalSubject["kind"] }>> {
    const rows = await this.db.selectFrom("approvals").select(["run_id", "kind"]).distinct().where("status", "=", "decided").where("resumed_at", "is", null).limit(limit).execute();
    return rows.map((r) => ({ runId: r.run_id, kind: r.kind === "agent" ? "agent" : "run" }));
  }
}

function decode(row: Selectable<ApprovalTables["approvals"]>): Approval {
  return {
    id: row.id,
    runId: row.run_id,
    subject: subjectOf(row),
    nodeId: row.node_id,
    workflowId: row.workflow_id,
    request: ApprovalRequestSchema.parse({ ...(JSON.parse(row.request) as object), role: ApprovalRoleSchema.parse(row.role) }),
    status: row.status === "decided" || row.status === "closed" ? row.status : "pending",
    ...present({ deadline: optionalNum(row.deadline) }),
    createdAt: num(row.created_at),
    ...present({ decision: ApprovalDecisionSchema.optional().parse(row.decision ?? undefined), decidedBy: row.decided_by, decidedAt: optionalNum(row.decided_at), comment: row.comment }),
  };
}

function subjectOf(row: Selectable<ApprovalTables["approvals"]>): ApprovalSubject {
  if (row.kind !== "agent") return { kind: "run" };
  return { kind: "agent", conversationId: row.conversation_id ?? row.run_id, agentId: row.workflow_id, step: Number(row.node_id.replace(/^step-/, "")) };
}
