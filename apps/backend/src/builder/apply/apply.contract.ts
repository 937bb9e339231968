import { describe, expect, it } from "vitest";
import { APPLY_CONFIRM_SOURCE, silentLogger, WorkflowSchema, type Workflow } from "@weft/types";
import { createBuiltinRegistry } from "@weft/nodes";
import { ExecutionEngine } from "@weft/agent-runtime";
import { storageOpener, type StorageHarness } from "../../testing/storage-contract/harness.ts";
import type { Storage } from "../../testing/storage.ts";
import { templateWorkflow } from "../../testing/test-server.ts";
import type { BuilderContext } from "../builder-context.ts";
import { ChangeSetService } from "../changes/change-set-service.ts";
import { BuilderError } from "../domain/errors.ts";
import { BuilderStore } from "../storage/builder-store.ts";
import { execRaw, sessionRecord } from "../storage/builder-store.contract.ts";
import { ApplyOrchestrator } from "./apply-orchestrator.ts";

const REFUSE_APPLIED_AUDIT = {
  sqlite: "CREATE TRIGGER refuse_apply BEFORE INSERT ON builder_audit_events WHEN NEW.type = 'ai.apply.succeeded' BEGIN SELECT RAISE(ABORT, 'the disk says no'); END",
  postgres: `CREATE FUNCTION refuse_apply() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.type = 'ai.apply.succeeded' THEN RAISE EXCEPTION 'the disk says no'; END IF; RETURN NEW; END $$;
    CREATE TRIGGER refuse_apply BEFORE INSERT ON builder_audit_events FOR EACH ROW EXECUTE FUNCTION refuse_apply();`,
};
const ALLOW_APPLIED_AUDIT = { sqlite: "DROP TRIGGER refuse_apply", postgres: "DROP TRIGGER refuse_apply ON builder_audit_events" };

function notes(name = "Notes"): Workflow {
  return WorkflowSchema.parse({ ...templateWorkflow("notes"), name });
}

/** The Builder's services on `storage`, without a model: changes are staged the way the model's tool stages them. */
function builderOn(storage: Storage) {
  const catalog = createBuiltinRegistry();
  const ctx: BuilderContext = { store: new BuilderStore(storage), storage, catalog, validator: new ExecutionEngine({ catalog }), toolHost: undefined, log: silentLogger };
  const changeSets = new ChangeSetService(ctx);
  return { store: ctx.store, changeSets, apply: new ApplyOrchestrator(ctx, changeSets) };
}

/** Everything a failed apply must leave as it was: the stored document and the Builder's rows of the session. */
async function snapshot(storage: Storage, builder: ReturnType<typeof builderOn>, sessionId: string) {
  return {
    workflow: await storage.workflows.get("notes"),
    session: await builder.store.getSession(sessionId),
    changeSets: (await builder.store.listChangeSets(sessionId)).map((c) => ({ id: c.id, status: c.status, appliedRevisions: c.appliedRevisions })),
    overlay: await builder.store.overlay(sessionId),
  };
}

/**
 * `storage` whose workflow repository lets `intrude` write right after apply read a revision: the
 * moment between apply's check and its write, where another process's change must still be noticed.
 */
function racedAfterRevision(storage: Storage, intrude: (id: string, revision: number) => Promise<void>): Storage {
  let armed = true;
  const workflows = new Proxy(storage.workflows, {
    get(target, prop) {
      if (prop === "revision") {
        return async (id: string) => {
          const revision = await target.revision(id);
          if (armed && revision !== null) {
            armed = false;
            await intrude(id, revision);
          }
          return revision;
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return new Proxy(storage, {
    get(target, prop) {
      if (prop === "workflows") return workflows;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Apply writes documents and the Builder's tables in one transaction of the server storage, on every engine. */
export function applyContract(harness: StorageHarness): void {
  describe(`Builder apply (${harness.engine})`, () => {
    const { fresh, database } = storageOpener(harness);

    async function staged(storage: Storage, sessionId: string, name: string) {
      const builder = builderOn(storage);
      await builder.store.saveSession(sessionRecord(sessionId));
      const outcome = await builder.changeSets.stage(sessionId, { summary: `rename to ${name}`, operations: [{ op: "workflow.put", workflow: notes(name) }] });
      if (!outcome.ok) throw new Error(`not staged: ${JSON.stringify(outcome.errors)}`);
      return { builder, changeSetId: outcome.changeSet.id };
    }

    it("a failing apply leaves neither the document nor the Builder's tables changed; once the cause is gone it applies", async () => {
      const storage = await fresh();
      await storage.workflows.create(notes());
      const { builder, changeSetId } = await staged(storage, "s1", "Renamed");
      await builder.changeSets.validate("s1", changeSetId);
      const before = await snapshot(storage, builder, "s1");
      expect(before.overlay).toHaveLength(1);
      expect(before.changeSets).toEqual([{ id: changeSetId, status: "validated", appliedRevisions: undefined }]);

      // The last write of apply's transaction fails, after the document, the change set, the working copy and the session were written.
      await execRaw(storage, REFUSE_APPLIED_AUDIT);
      const failed = await builder.apply.apply("s1", { changeSetId, confirmSource: APPLY_CONFIRM_SOURCE }).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(BuilderError);
      expect(failed).toMatchObject({ code: "AI_APPLY_FAILED", details: { cause: expect.stringContaining("the disk says no") } });
      expect(await snapshot(storage, builder, "s1")).toEqual(before);
      const audit = (await builder.store.listAudit("s1", 0, 100)).map((e) => e.type);
      expect(audit).not.toContain("ai.apply.succeeded");
      expect(audit.at(-1)).toBe("ai.apply.failed");

      await execRaw(storage, ALLOW_APPLIED_AUDIT);
      const applied = await builder.apply.apply("s1", { changeSetId, confirmSource: APPLY_CONFIRM_SOURCE });
      expect(applied).toMatchObject({ applied: true, newRevision: { workflows: { notes: 2 } } });
      expect((await storage.workflows.get("notes"))?.document).toMatchObject({ name: "Renamed", revision: 2 });
      expect((await builder.store.getChangeSet(changeSetId))?.status).toBe("applied");
      expect(await builder.store.overlay("s1")).toEqual([]);
      expect((await builder.store.listAudit("s1", 0, 100)).map((e) => e.type).at(-1)).toBe("ai.apply.succeeded");
    });

    it("a delete loses to a change made between apply's revision check and its write: AI_APPLY_CONFLICT, nothing applied", async () => {
      const db = await database();
      const first = await db.open();
      // On PostgreSQL the change comes from another connection while apply's transaction is open. SQLite's
      // transaction keeps other connections' writes out, so there it is made on the transaction's own
      // connection: either way the stored revision moves after apply checked it.
      const other = harness.engine === "postgres" ? await db.open() : first;
      await first.workflows.create(notes());
      const storage = racedAfterRevision(first, async (id, revision) => {
        const updated = await other.workflows.update(notes("Changed meanwhile"), revision);
        expect({ id, kind: updated.kind }).toEqual({ id: "notes", kind: "updated" });
      });
      const builder = builderOn(storage);
      await builder.store.saveSession(sessionRecord("sd"));
      const outcome = await builder.changeSets.stage("sd", { summary: "delete notes", operations: [{ op: "workflow.delete", workflowId: "notes" }] });
      if (!outcome.ok) throw new Error(`not staged: ${JSON.stringify(outcome.errors)}`);
      const failed = await builder.apply.apply("sd", { changeSetId: outcome.changeSet.id, confirmSource: APPLY_CONFIRM_SOURCE }).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(BuilderError);
      expect(failed).toMatchObject({ code: "AI_APPLY_CONFLICT", details: { field: 'workflows["notes"].revision', current: 2 } });
      // On SQLite the change was part of apply's transaction and is rolled back with it.
      const kept = harness.engine === "postgres" ? { name: "Changed meanwhile", revision: 2 } : { name: "Notes", revision: 1 };
      expect((await first.workflows.get("notes"))?.document).toMatchObject(kept);
      expect((await builder.store.listChangeSets("sd")).map((c) => c.status)).not.toContain("applied");
      expect(await builder.store.overlay("sd")).toHaveLength(1);
    });

    it("two sessions applying to one workflow at once from two storages: one wins, the other changes nothing (no lost update)", async () => {
      const db = await database();
      const first = await db.open();
      // Two SQLite connections in one process would wait for each other's lock synchronously (blocking the
      // thread); there the one storage's transactions take turns, as two processes' would on the file.
      const second = harness.engine === "postgres" ? await db.open() : first;
      await first.workflows.create(notes());
      const a = await staged(first, "sa", "From A");
      const b = await staged(second, "sb", "From B");
      const results = await Promise.allSettled([
        a.builder.apply.apply("sa", { changeSetId: a.changeSetId, confirmSource: APPLY_CONFIRM_SOURCE }),
        b.builder.apply.apply("sb", { changeSetId: b.changeSetId, confirmSource: APPLY_CONFIRM_SOURCE }),
      ]);
      const applied = results.flatMap((r, i) => (r.status === "fulfilled" && r.value.applied ? [i] : []));
      expect(applied).toHaveLength(1);
      const loser = results[1 - applied[0]];
      // The loser either saw the new revision before writing (a warning to confirm) or while writing (a conflict).
      if (loser.status === "rejected") expect(loser.reason).toMatchObject({ code: "AI_APPLY_CONFLICT" });
      else expect(loser.value).toMatchObject({ applied: false, requiresConfirmation: true });
      const stored = (await first.workflows.get("notes"))?.document;
      expect(stored).toMatchObject({ revision: 2, name: applied[0] === 0 ? "From A" : "From B" });
      const loserBuilder = applied[0] === 0 ? b.builder : a.builder;
      const loserSession = applied[0] === 0 ? "sb" : "sa";
      expect((await loserBuilder.store.listChangeSets(loserSession)).map((c) => c.status)).not.toContain("applied");
      expect(await loserBuilder.store.overlay(loserSession)).toHaveLength(1);
    });
  });
}
