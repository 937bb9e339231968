import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApprovalRequest } from "@weft/types";
import { MIGRATIONS } from "../schema.ts";
import { openPostgresStorage, openSqliteStorage, type Storage } from "../testing/storage.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";
import { tempDir } from "../testing/temp-dirs.ts";
import { ApprovalTable } from "./approval-table.ts";
import { ApprovalWaits } from "./approval-waits.ts";

const request = (over: Partial<ApprovalRequest> = {}): ApprovalRequest => ({ question: "Ship it?", data: { n: 1 }, role: "editor", defaultDecision: "rejected", ...over });

/** The same contract on each engine: pending rows, one decision per approval, the deadline sweep's query and the resume claim. */
function approvalContract(engine: string, open: () => Promise<Storage>) {
  describe(`ApprovalTable on ${engine}`, () => {
    let table: ApprovalTable;
    beforeAll(async () => {
      table = new ApprovalTable(await open());
    });

    it("stores a paused run's requests once per node, decides each exactly once, and lists what is overdue", async () => {
      const waits = new ApprovalWaits(table);
      await waits.record("run-1", "wf", [{ nodeId: "gate", request: request({ timeoutSeconds: 5 }) }], 1_000);
      // Paused again on the same node (a resumed execution that did not see the decision yet): the first request stays.
      await waits.record("run-1", "wf", [{ nodeId: "gate", request: request({ question: "again?" }) }], 2_000);
      const [row] = await table.byRun("run-1");
      expect(row).toMatchObject({ runId: "run-1", nodeId: "gate", status: "pending", deadline: 6_000, createdAt: 1_000, request: { question: "Ship it?", timeoutSeconds: 5 } });
      expect((await table.pending(10)).map((a) => a.id)).toEqual([row!.id]);
      expect(await table.overdue(5_999, 10)).toEqual([]);
      expect((await table.overdue(6_000, 10)).map((a) => a.id)).toEqual([row!.id]);

      expect(await table.decide(row!.id, { decision: "approved", decidedBy: "u1", decidedAt: 3_000, comment: "ok" })).toBe(true);
      expect(await table.decide(row!.id, { decision: "rejected", decidedBy: "timeout", decidedAt: 6_000 })).toBe(false);
      expect(await table.get(row!.id)).toMatchObject({ status: "decided", decision: "approved", decidedBy: "u1", decidedAt: 3_000, comment: "ok" });
      expect(await table.pending(10)).toEqual([]);
      expect(await table.overdue(9_000, 10)).toEqual([]);
      expect(await waits.decided("run-1")).toEqual(
        new Map([["gate", { status: "completed", inputs: { data: { n: 1 } }, outputs: { approved: { n: 1 }, decision: { decision: "approved", decidedBy: "u1", decidedAt: 3_000, comment: "ok" } } }]]),
      );
    });

    it("claims a run's new decisions for resuming once, and gives a claim back", async () => {
      expect(await table.unresumedRuns(10)).toEqual([{ runId: "run-1", kind: "run" }]);
      expect(await table.claimResume("run-1", 4_000)).toBe(true);
      expect(await table.claimResume("run-1", 4_001)).toBe(false);
      expect(await table.unresumedRuns(10)).toEqual([]);
      await table.releaseResume("run-1", 4_000);
      expect(await table.unresumedRuns(10)).toEqual([{ runId: "run-1", kind: "run" }]);
      // A run without decisions has nothing to claim.
      await new ApprovalWaits(table).record("run-2", "wf", [{ nodeId: "gate", request: request() }], 5_000);
      expect(await table.claimResume("run-2", 5_001)).toBe(false);
    });

    it("keeps an agent's approval (approvals-002): its subject is the conversation and the asking step, claimed like a run's", async () => {
      const subject = { kind: "agent" as const, conversationId: "conv-1", agentId: "payer", step: 3 };
      await table.addPending([{ id: "a-agent", runId: "conv-1", subject, nodeId: "step-3", workflowId: "payer", request: request(), createdAt: 7_000 }]);
      expect(await table.get("a-agent")).toMatchObject({ runId: "conv-1", subject, status: "pending" });
      expect(await table.decide("a-agent", { decision: "rejected", decidedBy: "u2", decidedAt: 8_000 })).toBe(true);
      expect(await table.unresumedRuns(10)).toContainEqual({ runId: "conv-1", kind: "agent" });
      expect(await table.claimResume("conv-1", 8_001)).toBe(true);
      expect(await table.unresumedRuns(10)).not.toContainEqual({ runId: "conv-1", kind: "agent" });
    });
  });
}

approvalContract("SQLite", () => openSqliteStorage(tempDir(), undefined, MIGRATIONS));

let cluster: TestPostgres | undefined;
afterAll(async () => cluster?.stop());
approvalContract("PostgreSQL", async () => {
  cluster = await startPostgres();
  return openPostgresStorage(await createTestDatabase(cluster.url), undefined, MIGRATIONS);
});
