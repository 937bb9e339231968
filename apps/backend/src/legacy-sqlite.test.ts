import { describe, expect, it } from "vitest";
import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { openSqliteStorage, DATABASE_FILE } from "./testing/storage.ts";
import { CredentialTable } from "./credentials/credential-repository.ts";
import { MIGRATIONS } from "./schema.ts";
import { tempDir } from "./testing/test-server.ts";

/** Written by Weft e5dc891's own code (testing/make-legacy-sqlite.ts): user_version 9, credentials' module row, a few rows. */
const FIXTURE = new URL("./storage/fixtures/e5dc891.sqlite", import.meta.url).pathname;

function legacyCopy(): string {
  const dir = tempDir();
  copyFileSync(FIXTURE, join(dir, DATABASE_FILE));
  return dir;
}

describe("a SQLite file written by Weft e5dc891", () => {
  it("opens with its rows, its squashed steps recorded as applied and the missing modules' tables created", async () => {
    const dir = legacyCopy();
    const storage = await openSqliteStorage(dir, undefined, MIGRATIONS);
    try {
      expect((await storage.workflows.get("kept"))?.document).toMatchObject({ name: "Kept", description: "from e5dc891", tags: ["old"] });
      expect((await storage.workflows.summaries()).items).toMatchObject([{ id: "kept", description: "from e5dc891", tags: ["old"] }]);
      expect(await storage.runs.get("r1")).toMatchObject({ status: "completed", outputs: { text: "done" } });
      expect(await storage.meta.get("legacy")).toBe("yes");
      expect(await new CredentialTable(storage).get("api")).toMatchObject({ hosts: ["https://example.com/*"], roles: ["owner"] });
      await storage.workflows.create({ id: "new", name: "New", description: "", revision: 1, nodes: [], edges: [], annotations: [], tags: [] });
    } finally {
      await storage.close();
    }
    const db = new Database(join(dir, DATABASE_FILE));
    const ids = (db.query("SELECT id FROM schema_migrations").all() as { id: string }[]).map((r) => r.id).sort();
    expect(ids).toEqual(MIGRATIONS.map((m) => m.id).sort());
    // Past e5dc891's last version: that Weft refuses the file as newer instead of migrating it again.
    expect(db.query("PRAGMA user_version").get()).toEqual({ user_version: 10 });
    db.close();
    // And it opens again as it is.
    const again = await openSqliteStorage(dir, undefined, MIGRATIONS);
    expect(await again.workflows.ids()).toEqual(["kept", "new"]);
    await again.close();
  });

  it("refuses a file older than e5dc891's last schema with SCHEMA_TOO_OLD, changing nothing", async () => {
    const dir = legacyCopy();
    const file = join(dir, DATABASE_FILE);
    const db = new Database(file);
    db.run("PRAGMA user_version = 7");
    db.close();
    const before = readFileSync(file);
    await expect(openSqliteStorage(dir, undefined, MIGRATIONS)).rejects.toMatchObject({
      code: "SCHEMA_TOO_OLD",
      message: expect.stringMatching(/schema version 7.*e5dc891.*Nothing was changed/),
    });
    expect(readFileSync(file).equals(before)).toBe(true);
  });
});
