import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS } from "../schema.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";
import { tempDir } from "../testing/test-server.ts";
import { agentProfile, scene, workflow } from "../testing/storage-contract/harness.ts";
import { openPostgresStorage, openSqliteStorage, type Storage } from "../testing/storage.ts";
import type { Migration } from "./migrations.ts";
import { createQueryDb } from "./query-db.ts";

const BACKFILL = "versions-003 documents stored before version history get their content as version 1";
const BEFORE_BACKFILL = MIGRATIONS.filter((m) => m.id !== BACKFILL);

let cluster: TestPostgres | undefined;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.stop());

const engines: Array<[string, () => Promise<(migrations: readonly Migration[]) => Promise<Storage>>]> = [
  [
    "SQLite",
    async () => {
      const dir = tempDir();
      return (migrations) => openSqliteStorage(dir, undefined, migrations);
    },
  ],
  [
    "PostgreSQL",
    async () => {
      if (!cluster) throw new Error("the test PostgreSQL did not start");
      const url = await createTestDatabase(cluster.url);
      return (migrations) => openPostgresStorage(url, undefined, migrations, { maxConnections: 2 });
    },
  ],
];

describe.each(engines)("upgrading a %s database whose documents were stored before version history", (_engine, database) => {
  it("gives each document its stored content as version 1, once, and leaves one that no longer reads as it is", async () => {
    const open = await database();
    const before = await open(BEFORE_BACKFILL);
    await before.workflows.create(workflow({ id: "w", name: "A workflow", nodes: [] }));
    await before.agents.create(agentProfile("a", "An agent"));
    await before.scenes.create(scene("s", "A scene"));
    await before.scenes.create(scene("broken", "Broken"));
    const db = createQueryDb<{ document_versions: { kind: string }; scenes: { id: string; data: string; updated_at: number } }>(before.sql);
    // As a database written before versions-001 has them: documents, no versions.
    await db.deleteFrom("document_versions").execute();
    await db.updateTable("scenes").set({ data: "{not json" }).where("id", "=", "broken").execute();
    await db.updateTable("scenes").set({ updated_at: 1234 }).where("id", "=", "s").execute();
    await before.close();

    const after = await open(MIGRATIONS);
    try {
      for (const [repo, id, name] of [
        [after.workflows, "w", "A workflow"],
        [after.agents, "a", "An agent"],
        [after.scenes, "s", "A scene"],
      ] as const) {
        const versions = await repo.versions.list(id, 10);
        expect(versions).toEqual([expect.objectContaining({ number: 1, savedBy: null, message: "as stored before version history" })]);
        const content = (await repo.versions.get(id, 1))?.content;
        expect(content).toEqual(expect.objectContaining({ id, name }));
        expect(content).not.toHaveProperty("revision");
      }
      expect((await after.scenes.versions.latest("s"))?.savedAt).toBe(1234);
      expect(await after.scenes.versions.list("broken", 10)).toEqual([]);

      // Its next save is version 2.
      const stored = await after.agents.get("a");
      if (!stored) throw new Error("the agent profile is gone");
      expect(await after.agents.update({ ...stored.document, name: "Renamed" }, stored.document.revision)).toMatchObject({ kind: "updated" });
      expect((await after.agents.versions.list("a", 10)).map((v) => v.number)).toEqual([2, 1]);
    } finally {
      await after.close();
    }

    // Opened again, the step does not run again.
    const again = await open(MIGRATIONS);
    try {
      expect((await again.workflows.versions.list("w", 10)).map((v) => v.number)).toEqual([1]);
    } finally {
      await again.close();
    }
  });
});
