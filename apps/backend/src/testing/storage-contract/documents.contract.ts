import { describe, expect, it } from "vitest";
import type { AgentProfile, Scene, Workflow } from "@weft/types";
import type { DocumentRepository } from "../../storage/document-table.ts";
import { createQueryDb } from "../../storage/query-db.ts";
import type { Storage } from "../storage.ts";
import { agentProfile, scene, skill, storageOpener, summariesOfWholeDocuments, workflow, type StorageHarness } from "./harness.ts";

interface Kind<T extends { id: string; name: string; revision: number }> {
  label: string;
  repository(storage: Storage): DocumentRepository<T>;
  make(id: string, name: string): T;
  rename(document: T, name: string): T;
}

function describeDocuments<T extends { id: string; name: string; revision: number }>(harness: StorageHarness, kind: Kind<T>): void {
  describe(`storage contract (${harness.engine}): ${kind.label}`, () => {
    const { fresh, database } = storageOpener(harness);

    it("create at revision 1, refuse a taken id, get, and list by name (case-insensitive) then id", async () => {
      const repo = kind.repository(await fresh());
      const created = await repo.create(kind.make("b", "beta"));
      expect(created.kind).toBe("created");
      if (created.kind !== "created") return;
      expect(created.record.document.revision).toBe(1);
      expect(created.record.createdAt).toBe(created.record.updatedAt);
      expect(await repo.create(kind.make("b", "other"))).toEqual({ kind: "exists" });
      await repo.create(kind.make("a", "Alpha"));
      await repo.create(kind.make("c", "alpha"));
      expect((await repo.get("b"))?.document).toEqual(created.record.document);
      expect(await repo.get("missing")).toBeUndefined();
      const listing = await repo.list();
      expect(listing.skipped).toEqual([]);
      expect(listing.items.map((r) => r.document.id)).toEqual(["a", "c", "b"]);
      expect(await repo.ids()).toEqual(["a", "b", "c"]);
    });

    it("update only from the stored revision: a stale base is a conflict with the current record, an unknown id not-found", async () => {
      const repo = kind.repository(await fresh());
      await repo.create(kind.make("d", "one"));
      const first = await repo.update(kind.rename(kind.make("d", "one"), "two"), 1);
      expect(first.kind).toBe("updated");
      if (first.kind === "updated") expect(first.record.document).toMatchObject({ name: "two", revision: 2 });
      const stale = await repo.update(kind.rename(kind.make("d", "one"), "three"), 1);
      expect(stale.kind).toBe("conflict");
      if (stale.kind === "conflict") expect(stale.current.document).toMatchObject({ name: "two", revision: 2 });
      expect((await repo.get("d"))?.document).toMatchObject({ name: "two", revision: 2 });
      expect(await repo.update(kind.make("nope", "x"), 1)).toEqual({ kind: "not-found" });
    });

    it("revision, put at an exact revision and delete", async () => {
      const repo = kind.repository(await fresh());
      expect(await repo.revision("e")).toBeNull();
      await repo.put(kind.make("e", "put"), 7);
      expect(await repo.revision("e")).toBe(7);
      expect((await repo.get("e"))?.document).toMatchObject({ name: "put", revision: 7 });
      await repo.put(kind.rename(kind.make("e", "put"), "again"), 8);
      expect((await repo.get("e"))?.document).toMatchObject({ name: "again", revision: 8 });
      expect(await repo.delete("e")).toBe(true);
      expect(await repo.delete("e")).toBe(false);
      expect(await repo.get("e")).toBeUndefined();
    });

    it("delete with an expected revision deletes only that revision, in one statement", async () => {
      const repo = kind.repository(await fresh());
      await repo.create(kind.make("f", "one"));
      await repo.update(kind.rename(kind.make("f", "one"), "two"), 1);
      expect(await repo.delete("f", 1)).toBe(false);
      expect((await repo.get("f"))?.document).toMatchObject({ name: "two", revision: 2 });
      expect(await repo.delete("f", 2)).toBe(true);
      expect(await repo.get("f")).toBeUndefined();
      expect(await repo.delete("f", 2)).toBe(false);
      expect(await repo.delete("never", 1)).toBe(false);
    });

    it("two storages on one database, one updating and one deleting from the same revision: exactly one wins", async () => {
      const db = await database();
      const [one, two] = [kind.repository(await db.open()), kind.repository(await db.open())];
      for (let round = 1; round <= 5; round++) {
        const id = `gone-${round}`;
        await one.create(kind.make(id, "start"));
        const [updated, deleted] = await Promise.all([one.update(kind.rename(kind.make(id, "x"), "updated"), 1), two.delete(id, 1)]);
        const stored = await one.get(id);
        if (deleted) {
          expect(updated.kind).toBe("not-found");
          expect(stored).toBeUndefined();
        } else {
          expect(updated.kind).toBe("updated");
          expect(stored?.document).toMatchObject({ name: "updated", revision: 2 });
        }
      }
    });

    it("two storages on one database updating from the same revision: exactly one wins, the other sees a conflict", async () => {
      const db = await database();
      const [one, two] = [kind.repository(await db.open()), kind.repository(await db.open())];
      await one.create(kind.make("race", "start"));
      for (let round = 1; round <= 5; round++) {
        const results = await Promise.all([one.update(kind.rename(kind.make("race", "x"), `one-${round}`), round), two.update(kind.rename(kind.make("race", "x"), `two-${round}`), round)]);
        expect(results.map((r) => r.kind).sort()).toEqual(["conflict", "updated"]);
        const winner = results.find((r) => r.kind === "updated");
        const stored = await two.get("race");
        expect(stored?.document.revision).toBe(round + 1);
        if (winner?.kind === "updated") expect(stored?.document.name).toBe(winner.record.document.name);
      }
      // One version per stored save, numbered without gaps: the losers left none.
      expect((await one.versions.list("race", 50)).map((v) => v.number)).toEqual([6, 5, 4, 3, 2, 1]);
    });

    it("keep a version per save with who and why, none for an identical save, each content stored once", async () => {
      const storage = await fresh();
      const repo = kind.repository(storage);
      const edna = { id: "u-1", name: "edna" };
      await repo.create(kind.make("v", "one"), { by: edna, message: "first" });
      await repo.update(kind.rename(kind.make("v", "one"), "two"), 1, { message: "renamed" });
      await repo.update(kind.rename(kind.make("v", "one"), "two"), 2);
      await repo.update(kind.make("v", "one"), 3, { by: edna });
      await repo.put(kind.rename(kind.make("v", "one"), "put"), 9);
      const versions = await repo.versions.list("v", 10);
      expect(versions.map((v) => [v.number, v.savedBy?.name ?? null, v.message ?? null])).toEqual([
        [4, null, null],
        [3, "edna", null],
        [2, null, "renamed"],
        [1, "edna", "first"],
      ]);
      // Version 3 went back to version 1's content: one content row serves both.
      expect(versions[2].hash).not.toBe(versions[3].hash);
      expect(versions[1].hash).toBe(versions[3].hash);
      const one = await repo.versions.get("v", 1);
      expect(one?.content).toEqual(expect.objectContaining({ id: "v", name: "one" }));
      expect(one?.content).not.toHaveProperty("revision");
      expect(await repo.versions.get("v", 5)).toBeUndefined();
      const db = createQueryDb<{ document_contents: { hash: string } }>(storage.sql);
      expect((await db.selectFrom("document_contents").select("hash").execute()).length).toBe(3);
      expect(await repo.versions.numberOf("v", one?.content)).toBe(3);
      // By revision: the stored one's version (an identical save keeps it), none for a revision no longer stored.
      expect(await repo.versions.ofRevision("v", 9)).toBe(4);
      await repo.update(kind.rename(kind.make("v", "one"), "put"), 9);
      expect([await repo.versions.ofRevision("v", 10), await repo.versions.ofRevision("v", 9), await repo.versions.ofRevision("v", 4)]).toEqual([4, undefined, undefined]);

      // Deleting the document deletes its versions and the contents nothing else names.
      expect(await repo.delete("v")).toBe(true);
      expect(await repo.versions.list("v", 10)).toEqual([]);
      expect(await db.selectFrom("document_contents").select("hash").execute()).toEqual([]);
    });

    it("prune old versions but pinned ones", async () => {
      const storage = await fresh();
      const repo = kind.repository(storage);
      await repo.create(kind.make("old", "as stored"));
      for (let n = 1; n <= 5; n++) await repo.update(kind.rename(kind.make("old", "x"), `name ${n}`), n);
      expect((await repo.versions.latest("old"))?.number).toBe(6);
      const removed = await repo.versions.prune(2, (id, number) => id === "old" && number === 2);
      expect(removed).toBe(3);
      expect((await repo.versions.list("old", 10)).map((v) => v.number)).toEqual([6, 5, 2]);
      expect((await repo.versions.get("old", 2))?.content).toEqual(expect.objectContaining({ name: "name 1" }));
    });
  });
}

export function documentsContract(harness: StorageHarness): void {
  describeDocuments<Workflow>(harness, { label: "workflows", repository: (s) => s.workflows, make: (id, name) => workflow({ id, name, nodes: [] }), rename: (d, name) => ({ ...d, name }) });
  describeDocuments<AgentProfile>(harness, { label: "agent profiles", repository: (s) => s.agents, make: agentProfile, rename: (d, name) => ({ ...d, name }) });
  describeDocuments<Scene>(harness, { label: "scene documents", repository: (s) => s.scenes, make: scene, rename: (d, name) => ({ ...d, name }) });
}

export function workflowsContract(harness: StorageHarness): void {
  describe(`storage contract (${harness.engine}): workflow summaries and callers`, () => {
    const { fresh, database } = storageOpener(harness);

    it("summaries match the whole stored documents, in the list's order, and follow updates", async () => {
      const storage = await fresh();
      await storage.workflows.create(skill("b-skill", "beta", 40));
      await storage.workflows.create(workflow({ id: "a-plain", name: "Alpha", description: "plain", tags: ["x", "y"], nodes: [{ id: "x", type: "core:text-transform" }] }));
      await storage.workflows.create(workflow({ id: "empty", name: "gamma", nodes: [] }));
      const whole = await summariesOfWholeDocuments(storage.workflows);
      const summaries = await storage.workflows.summaries();
      expect(summaries.skipped).toEqual([]);
      expect(summaries.items.map((s) => s.id)).toEqual(["a-plain", "b-skill", "empty"]);
      expect(summaries.items).toEqual(whole);
      expect(summaries.items[1]).toMatchObject({ nodeCount: 42, isSkill: true, description: "beta described", tags: ["a"] });
      await storage.workflows.update(workflow({ id: "empty", name: "gamma", description: "now a skill", nodes: skill("x", "x").nodes }), 1);
      await storage.workflows.put(workflow({ id: "a-plain", name: "Alpha", nodes: [] }), 5);
      const after = (await storage.workflows.summaries()).items;
      expect(after.find((s) => s.id === "empty")).toMatchObject({ revision: 2, description: "now a skill", nodeCount: 2, isSkill: true });
      expect(after.find((s) => s.id === "a-plain")).toMatchObject({ revision: 5, nodeCount: 0, isSkill: false, tags: [] });
    });

    it("callersOf finds the workflows whose nodes call a skill through one of the calling types; isStored knows what this storage wrote", async () => {
      const storage = await fresh();
      await storage.workflows.create(skill("s", "skill"));
      await storage.workflows.create(workflow({ id: "c1", name: "Caller", nodes: [{ id: "n", type: "core:call-workflow", config: { workflowId: "s" } }] }));
      await storage.workflows.create(workflow({ id: "c2", name: "another caller", nodes: [{ id: "n", type: "agent:skill", config: { workflowId: "s" } }] }));
      await storage.workflows.create(workflow({ id: "c3", name: "other type", nodes: [{ id: "n", type: "core:text-transform", config: { workflowId: "s" } }] }));
      expect(await storage.workflows.callersOf("s", ["core:call-workflow", "agent:skill"])).toEqual([
        { id: "c2", name: "another caller" },
        { id: "c1", name: "Caller" },
      ]);
      expect(await storage.workflows.callersOf("s", ["core:call-workflow"])).toEqual([{ id: "c1", name: "Caller" }]);
      expect(await storage.workflows.callersOf("none", ["core:call-workflow"])).toEqual([]);
      expect(storage.workflows.isStored("s")).toBe(true);
      expect(storage.workflows.isStored("missing")).toBe(false);
      await storage.workflows.delete("s");
      expect(storage.workflows.isStored("s")).toBe(false);
    });

    it("isStored learns what another storage on the database committed, and not what it rolled back", async () => {
      const db = await database();
      const [one, two] = [await db.open(), await db.open()];
      const soon = async (check: () => boolean) => {
        for (const deadline = Date.now() + 2000; !check() && Date.now() < deadline;) await Bun.sleep(20);
        return check();
      };
      await two.workflows.create(workflow({ id: "elsewhere", name: "made by another process", nodes: [] }));
      expect(await soon(() => one.workflows.isStored("elsewhere"))).toBe(true);
      await expect(
        two.transaction(async () => {
          await two.workflows.create(workflow({ id: "rolled-back", name: "never committed", nodes: [] }));
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      await two.workflows.delete("elsewhere");
      expect(await soon(() => !one.workflows.isStored("elsewhere"))).toBe(true);
      expect(one.workflows.isStored("rolled-back")).toBe(false);
      expect(two.workflows.isStored("rolled-back")).toBe(false);
      // A workflow committed by a transaction is known to its own storage too.
      await two.transaction(async () => {
        await two.workflows.create(workflow({ id: "in-transaction", name: "committed", nodes: [] }));
      });
      expect(await soon(() => two.workflows.isStored("in-transaction") && one.workflows.isStored("in-transaction"))).toBe(true);
    });
  });
}
