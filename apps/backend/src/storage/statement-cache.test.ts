import { describe, expect, it } from "vitest";
import { Database } from "bun:sqlite";
import { STATEMENTS_KEPT, StatementCache } from "./statement-cache.ts";

describe("StatementCache", () => {
  it("prepares a text once while it is among the last used, past bun:sqlite's 20", () => {
    const db = new Database(":memory:");
    const cache = new StatementCache(db);
    const first = cache.get("SELECT 0 AS n").statement;
    for (let i = 1; i < 100; i++) expect(cache.get(`SELECT ${i} AS n`).statement.get()).toEqual({ n: i });
    expect(cache.get("SELECT 0 AS n").statement === first).toBe(true);
    expect(first.get()).toEqual({ n: 0 });
    db.close();
  });

  it("drops (finalizes) statements not used for two generations and prepares them again when asked", () => {
    const db = new Database(":memory:");
    const cache = new StatementCache(db);
    const old = cache.get("SELECT 'old' AS v").statement;
    for (let i = 0; i < 2 * STATEMENTS_KEPT; i++) cache.get(`SELECT ${i} AS n`);
    expect(() => old.get()).toThrow();
    const again = cache.get("SELECT 'old' AS v").statement;
    expect(again === old).toBe(false);
    expect(again.get()).toEqual({ v: "old" });
    db.close();
  });

  it("tells statements that answer rows (a SELECT, a RETURNING) from those that only change them", () => {
    const db = new Database(":memory:");
    db.run("CREATE TABLE t (k TEXT PRIMARY KEY)");
    const cache = new StatementCache(db);
    expect(cache.get("SELECT k FROM t").returnsRows).toBe(true);
    expect(cache.get("INSERT INTO t (k) VALUES (?) RETURNING k").returnsRows).toBe(true);
    expect(cache.get("INSERT INTO t (k) VALUES (?)").returnsRows).toBe(false);
    expect(cache.get("DELETE FROM t").returnsRows).toBe(false);
    db.close();
  });
});
