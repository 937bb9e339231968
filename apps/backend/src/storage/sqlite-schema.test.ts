import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { openDatabase } from "./database.ts";
import { LATEST_SCHEMA_VERSION, runMigrations, SchemaTooNewError } from "./sqlite-schema.ts";
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

  it("move conversation messages out of the WITHOUT ROWID table (migration 9): every message kept in order, ids still unique, large ones no longer on overflow pages", () => {
    const db = openDatabase(join(tempDir(), "db.sqlite"));
    runMigrations(db);
    // The layout a version 8 database has.
    db.exec(`
      DROP TABLE conversation_messages;
      CREATE TABLE conversation_messages (
        conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL, message_id TEXT NOT NULL, data TEXT NOT NULL,
        PRIMARY KEY (conversation_id, seq)
      ) WITHOUT ROWID;
      CREATE UNIQUE INDEX conversation_messages_by_id ON conversation_messages (conversation_id, message_id);
      PRAGMA user_version = 8;
    `);
    db.run("INSERT INTO conversations (id, agent_id, data, created_at, updated_at) VALUES ('c', NULL, '{}', 0, 0)");
    const insert = db.query("INSERT INTO conversation_messages (conversation_id, seq, message_id, data) VALUES ('c', ?, ?, ?)");
    for (let seq = 0; seq < 300; seq++) insert.run(seq, `m${seq}`, JSON.stringify({ id: `m${seq}`, content: "x".repeat(1200 + seq) }));
    const usedPages = () => {
      const { pages } = db.query("SELECT (SELECT page_count FROM pragma_page_count) - (SELECT freelist_count FROM pragma_freelist_count) AS pages").get() as { pages: number };
      return pages;
    };
    const before = usedPages();

    expect(runMigrations(db)).toEqual({ fresh: false, from: 8, to: LATEST_SCHEMA_VERSION });
    const rows = db.query("SELECT seq, message_id, length(data) AS bytes FROM conversation_messages WHERE conversation_id = 'c' ORDER BY seq").all() as Array<{
      seq: number;
      message_id: string;
      bytes: number;
    }>;
    expect(rows).toHaveLength(300);
    expect(rows.every((r, i) => r.seq === i && r.message_id === `m${i}`)).toBe(true);
    expect(() => db.run("INSERT INTO conversation_messages (conversation_id, seq, message_id, data) VALUES ('c', 300, 'm7', '{}')")).toThrow(/UNIQUE/);
    expect(() => db.run("INSERT INTO conversation_messages (conversation_id, seq, message_id, data) VALUES ('c', 7, 'new', '{}')")).toThrow(/UNIQUE/);
    expect(String((db.query("SELECT sql FROM sqlite_master WHERE name = 'conversation_messages'").get() as { sql: string }).sql)).not.toContain("WITHOUT ROWID");
    // Rows of ~1.3 KB sat one to an overflow page before; now about three share a page.
    expect(usedPages()).toBeLessThan(before * 0.6);
    db.close();
  });

  it("refuse a database written by a newer Weft instead of damaging it", () => {
    const file = join(tempDir(), "db.sqlite");
    const db = openDatabase(file);
    db.run(`PRAGMA user_version = ${LATEST_SCHEMA_VERSION + 1}`);
    expect(() => runMigrations(db)).toThrow(SchemaTooNewError);
    db.close();
  });
});
