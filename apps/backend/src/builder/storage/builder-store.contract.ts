import { describe, expect, it } from "vitest";
import type { SecretRedactor } from "@weft/types";
import { redactorWith, storageOpener, workflow, type StorageHarness } from "../../testing/storage-contract/harness.ts";
import { StoredRecordInvalidError } from "../../storage/document-table.ts";
import type { Storage } from "../../testing/storage.ts";
import type { OverlayEntry } from "../domain/change-set.ts";
import type { ChangeSetRecord, SessionRecord } from "../domain/records.ts";
import { BuilderStore } from "./builder-store.ts";

export function sessionRecord(id: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id,
    conversationId: `conv-${id}`,
    target: { type: "workflow", workflowId: "notes" },
    mode: "optimize",
    status: "active",
    scope: { extra: [] },
    maxRepairRounds: 2,
    contextEnvelope: { targetLabel: "workflow notes", targetRevision: 1, referencedAssetPaths: [] },
    createdAt: 1_000,
    updatedAt: 1_000,
    ...overrides,
  };
}

export function changeSetRecord(id: string, sessionId: string, version: number, overrides: Partial<ChangeSetRecord> = {}): ChangeSetRecord {
  return { id, sessionId, version, status: "staged", summary: `change ${version}`, operations: [], entries: [], createdAt: 2_000 + version, updatedAt: 2_000 + version, ...overrides };
}

function assetEntry(key: string, value: string): OverlayEntry {
  return { type: "asset", key, base: null, value };
}

/** Runs a statement of the engine's own dialect on the storage's connection (test set-up only). */
export async function execRaw(storage: Storage, sql: { sqlite: string; postgres: string }): Promise<void> {
  const handle = storage.sql;
  switch (handle.engine) {
    case "sqlite":
      await handle.gate(() => handle.db.run(sql.sqlite));
      return;
    case "postgres":
      await handle.sql.unsafe(sql.postgres);
      return;
    default: {
      const never: never = handle;
      return never;
    }
  }
}

/** What every BuilderStore must do, on every engine: the same suite on SQLite and PostgreSQL. */
export function builderStoreContract(harness: StorageHarness): void {
  describe(`BuilderStore contract (${harness.engine})`, () => {
    const { fresh } = storageOpener(harness);
    const open = async (redactor?: SecretRedactor): Promise<{ storage: Storage; store: BuilderStore }> => {
      const storage = await fresh(redactor);
      return { storage, store: new BuilderStore(storage) };
    };

    it("stores, reads, updates and lists sessions newest first, filtered by target and status", async () => {
      const { store } = await open();
      await store.saveSession(sessionRecord("s1", { updatedAt: 10 }));
      await store.saveSession(sessionRecord("s2", { updatedAt: 30, target: { type: "agent", agentId: "helper" } }));
      await store.saveSession(sessionRecord("s3", { updatedAt: 20, status: "cancelled" }));
      expect(await store.getSession("s1")).toEqual(sessionRecord("s1", { updatedAt: 10 }));
      expect(await store.getSession("missing")).toBeUndefined();

      expect((await store.listSessions({ limit: 10 })).map((s) => s.id)).toEqual(["s2", "s3", "s1"]);
      expect((await store.listSessions({ limit: 2 })).map((s) => s.id)).toEqual(["s2", "s3"]);
      expect((await store.listSessions({ targetType: "workflow", limit: 10 })).map((s) => s.id)).toEqual(["s3", "s1"]);
      expect((await store.listSessions({ targetType: "agent", targetKey: "helper", limit: 10 })).map((s) => s.id)).toEqual(["s2"]);
      expect((await store.listSessions({ targetKey: "notes", status: "active", limit: 10 })).map((s) => s.id)).toEqual(["s1"]);

      await store.saveSession(sessionRecord("s1", { updatedAt: 40, status: "cancelled", latestChangeSetId: "cs1" }));
      expect(await store.getSession("s1")).toMatchObject({ status: "cancelled", latestChangeSetId: "cs1", updatedAt: 40 });
      expect((await store.listSessions({ status: "cancelled", limit: 10 })).map((s) => s.id)).toEqual(["s1", "s3"]);
      expect(await store.getSession("s1", "lock")).toEqual(await store.getSession("s1"));
      expect(await store.getSession("missing", "lock")).toBeUndefined();
    });

    it("change sets: by version, the open ones, the next version, one version per session", async () => {
      const { store } = await open();
      await store.saveSession(sessionRecord("s1"));
      await store.saveSession(sessionRecord("s2"));
      expect(await store.nextVersion("s1")).toBe(1);
      await store.saveChangeSet(changeSetRecord("c2", "s1", 2, { status: "validated" }));
      await store.saveChangeSet(changeSetRecord("c1", "s1", 1, { status: "superseded" }));
      await store.saveChangeSet(changeSetRecord("c3", "s1", 3, { status: "rejected", statusReason: "discarded" }));
      await store.saveChangeSet(changeSetRecord("c4", "s1", 4, { status: "rejected", statusReason: "invalid" }));
      await store.saveChangeSet(changeSetRecord("other", "s2", 1));

      expect((await store.listChangeSets("s1")).map((c) => c.id)).toEqual(["c1", "c2", "c3", "c4"]);
      // Discarded is no longer open; rejected as invalid still is (it can be validated again or discarded).
      expect((await store.listChangeSets("s1", "open")).map((c) => c.id)).toEqual(["c2", "c4"]);
      expect(await store.nextVersion("s1")).toBe(5);
      expect(await store.nextVersion("s2")).toBe(2);
      await expect(store.saveChangeSet(changeSetRecord("dup", "s1", 4))).rejects.toThrow();

      const validated = changeSetRecord("c2", "s1", 2, { status: "applied", appliedRevisions: [{ type: "workflow", key: "notes", revision: 3 }], updatedAt: 9_999 });
      await store.saveChangeSet(validated);
      expect(await store.getChangeSet("c2")).toEqual(validated);
      expect(await store.getChangeSet("missing")).toBeUndefined();
    });

    it("the working copy: entries replaced by type and key, read in byte order, cleared per session", async () => {
      const { store } = await open();
      await store.saveSession(sessionRecord("s1"));
      await store.saveSession(sessionRecord("s2"));
      await store.putOverlay("s1", [assetEntry("@project/b.md", "b1"), assetEntry("@project/a.md", "a1"), assetEntry("@project/B.md", "B1")], 1);
      await store.putOverlay("s1", [assetEntry("@project/b.md", "b2")], 2);
      await store.putOverlay("s2", [assetEntry("@project/a.md", "other")], 1);
      const wf = workflow({ id: "notes", name: "Notes", nodes: [] });
      await store.putOverlay("s1", [{ type: "workflow", key: "notes", base: 1, value: wf }], 3);

      const entries = await store.overlay("s1");
      expect(entries.map((e) => [e.type, e.key, e.value === null ? null : e.type === "asset" ? e.value : "doc"])).toEqual([
        ["asset", "@project/B.md", "B1"],
        ["asset", "@project/a.md", "a1"],
        ["asset", "@project/b.md", "b2"],
        ["workflow", "notes", "doc"],
      ]);
      expect(entries[3]).toEqual({ type: "workflow", key: "notes", base: 1, value: wf });
      await store.clearOverlay("s1");
      expect(await store.overlay("s1")).toEqual([]);
      expect(await store.overlay("s2")).toHaveLength(1);
    });

    it("the working copy: an entry given twice in one write keeps the later one", async () => {
      const { store } = await open();
      await store.saveSession(sessionRecord("s1"));
      await store.putOverlay("s1", [assetEntry("@project/a.md", "first"), assetEntry("@project/b.md", "b"), assetEntry("@project/a.md", "second")], 1);
      expect((await store.overlay("s1")).map((e) => [e.key, e.value])).toEqual([
        ["@project/a.md", "second"],
        ["@project/b.md", "b"],
      ]);
    });

    it("audit events: per session, after an id, limited, in order", async () => {
      const { store } = await open();
      await store.appendAudit("s1", "ai.session.created", { mode: "create" }, 100);
      await store.appendAudit("s2", "ai.message.sent", { chars: 3 }, 101);
      await store.appendAudit("s1", "ai.message.sent", { chars: 5 }, 102);
      await store.appendAudit("s1", "ai.tool.called", { tool: "builder.context.get", ok: true }, 103);
      const all = await store.listAudit("s1", 0, 10);
      expect(all.map((e) => [e.type, e.data, e.at, e.sessionId])).toEqual([
        ["ai.session.created", { mode: "create" }, 100, "s1"],
        ["ai.message.sent", { chars: 5 }, 102, "s1"],
        ["ai.tool.called", { tool: "builder.context.get", ok: true }, 103, "s1"],
      ]);
      expect(all.every((e) => typeof e.id === "number")).toBe(true);
      expect((await store.listAudit("s1", all[0].id, 1)).map((e) => e.type)).toEqual(["ai.message.sent"]);
      expect(await store.listAudit("s1", all[2].id, 10)).toEqual([]);
    });

    it("sessions and audit events pass the redactor; change sets (user documents) are stored as given", async () => {
      const secret = "sk-contract-Builder-9f8e7d6c5b4a";
      const { store } = await open(redactorWith(secret));
      await store.saveSession(sessionRecord("s1", { contextEnvelope: { targetLabel: `label ${secret}`, targetRevision: null, referencedAssetPaths: [] } }));
      await store.appendAudit("s1", "ai.apply.failed", { cause: `refused ${secret}` });
      await store.saveChangeSet(changeSetRecord("c1", "s1", 1, { summary: `keeps ${secret}` }));
      expect(JSON.stringify(await store.getSession("s1"))).not.toContain(secret);
      expect(JSON.stringify(await store.listAudit("s1", 0, 10))).not.toContain(secret);
      expect((await store.getChangeSet("c1"))?.summary).toBe(`keeps ${secret}`);
    });

    it("a stored record that no longer matches its schema is a StoredRecordInvalidError naming it", async () => {
      const { storage, store } = await open();
      await store.saveSession(sessionRecord("s1"));
      await execRaw(storage, {
        sqlite: "UPDATE builder_sessions SET data = '{\"id\":\"s1\"}' WHERE id = 's1'",
        postgres: "UPDATE builder_sessions SET data = '{\"id\":\"s1\"}' WHERE id = 's1'",
      });
      await expect(store.getSession("s1")).rejects.toBeInstanceOf(StoredRecordInvalidError);
      await expect(store.getSession("s1")).rejects.toThrow(/builder_sessions record "s1"/);
    });

    it("transaction: the Builder's writes and document writes are stored together, or none of them", async () => {
      const { storage, store } = await open();
      await store.saveSession(sessionRecord("s1"));
      await expect(
        storage.transaction(async () => {
          await storage.workflows.create(workflow({ id: "notes", name: "Notes", nodes: [] }));
          await store.saveSession(sessionRecord("s1", { status: "cancelled", updatedAt: 5_000 }));
          await store.saveChangeSet(changeSetRecord("c1", "s1", 1));
          await store.putOverlay("s1", [assetEntry("@project/a.md", "a")], 5_000);
          await store.appendAudit("s1", "ai.apply.succeeded", {});
          throw new Error("the disk says no");
        }),
      ).rejects.toThrow("the disk says no");
      expect(await storage.workflows.get("notes")).toBeUndefined();
      expect(await store.getSession("s1")).toEqual(sessionRecord("s1"));
      expect(await store.listChangeSets("s1")).toEqual([]);
      expect(await store.overlay("s1")).toEqual([]);
      expect(await store.listAudit("s1", 0, 10)).toEqual([]);

      const answer = await storage.transaction(async () => {
        await storage.workflows.create(workflow({ id: "notes", name: "Notes", nodes: [] }));
        await store.saveChangeSet(changeSetRecord("c1", "s1", 1));
        await store.appendAudit("s1", "ai.apply.succeeded", {});
        return "stored";
      });
      expect(answer).toBe("stored");
      expect((await storage.workflows.get("notes"))?.document.revision).toBe(1);
      expect((await store.listChangeSets("s1")).map((c) => c.id)).toEqual(["c1"]);
      expect((await store.listAudit("s1", 0, 10)).map((e) => e.type)).toEqual(["ai.apply.succeeded"]);
    });

    // One storage: on PostgreSQL its pool gives each transaction a connection of its own. (Two SQLite
    // connections in one process would wait for each other's lock synchronously, blocking the thread.)
    it("getSession with lock: concurrent writers of one session take turns (no lost update)", async () => {
      const { storage, store } = await open();
      await store.saveSession(sessionRecord("s1", { updatedAt: 0 }));
      // Each writer reads the session, waits a moment while holding it, and writes it back one higher.
      const bump = (store: BuilderStore) =>
        storage.transaction(async () => {
          const session = await store.getSession("s1", "lock");
          if (!session) throw new Error("session missing");
          await Bun.sleep(15);
          await store.saveSession({ ...session, updatedAt: session.updatedAt + 1 });
        });
      await Promise.all([1, 2, 3, 4, 5, 6].map(() => bump(store)));
      expect((await store.getSession("s1"))?.updatedAt).toBe(6);
    });
  });
}
