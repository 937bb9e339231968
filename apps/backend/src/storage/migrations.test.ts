import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { openDatabase } from "./database.ts";
import { LATEST_SCHEMA_VERSION, runMigrations, SchemaTooNewError } from "./migrations.ts";
import { tempDir } from "../testing/test-server.ts";

describe("migrations", () => {
  it("create the schema once, report a new database, and leave an existing one alone", () => {
    const file = join(tempDir(), "db.sqlite");
    const db = openDatabase(file);
    expect(runMigrations(db)).toEqual({ fresh: true, from: 0, to: LATEST_SCHEMA_VERSION });
    db.run("INSERT INTO meta (key, value) VALUES ('k', 'v')");
    db.close();
    const again = openDatabase(file);
    expect(runMigrations(again)).toEqual({ fresh: false, from: LATEST_SCHEMA_VERSION, to: LATEST_SCHEMA_VERSION });
    expect(again.query("SELECT value FROM meta WHERE key = 'k'").get()).toEqual({ value: "v" });
    expect(again.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    again.close();
  });

  it("refuse a database written by a newer Weft instead of damaging it", () => {
    const file = join(tempDir(), "db.sqlite");
    const db = openDatabase(file);
    db.run(`PRAGMA user_version = ${LATEST_SCHEMA_VERSION + 1}`);
    expect(() => runMigrations(db)).toThrow(SchemaTooNewError);
    db.close();
  });
});
