import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payloadId } from "../../events/payload-refs.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../../testing/postgres-server.ts";
import { sweepPostgres, sweepSqlite } from "./payload-sweep.ts";

const ref = (id: string) => ({ $weftPayload: id });
const text = (name: string) => JSON.stringify(`${name} `.repeat(80));
/** Payloads: `direct` referenced by an event, `nested` only through `direct`, `inString` from inside a JSON string, `orphan` by nothing. */
const direct = { id: payloadId(text("direct")), data: "" };
const nested = { id: payloadId(text("nested")), data: text("nested") };
const inString = { id: payloadId(text("in-string")), data: text("in-string") };
const orphan = { id: payloadId(text("orphan")), data: JSON.stringify({ inner: ref(nested.id) }) };
direct.data = JSON.stringify({ messages: [ref(nested.id), "short"] });
const PAYLOADS = [direct, nested, inString, orphan];
const EVENT = JSON.stringify({ type: "node.started", inputs: { messages: ref(direct.id) } });
/** A record that keeps another record's JSON as a string: the reference is escaped there. */
const STATE = JSON.stringify({ saved: JSON.stringify({ world: ref(inString.id) }) });

describe("payload sweep", () => {
  it("SQLite: keeps payloads referenced from any table, directly, nested or inside a JSON string; removes the rest", () => {
    const db = new Database(":memory:");
    db.exec("CREATE TABLE payloads (id TEXT NOT NULL UNIQUE, data TEXT NOT NULL); CREATE TABLE events (stream_id TEXT, seq INTEGER, data TEXT); CREATE TABLE some_new_table (doc TEXT)");
    for (const p of PAYLOADS) db.query("INSERT INTO payloads (id, data) VALUES (?, ?)").run(p.id, p.data);
    db.query("INSERT INTO events VALUES ('r1', 0, ?)").run(EVENT);
    db.query("INSERT INTO some_new_table VALUES (?)").run(STATE);
    expect(sweepSqlite(db)).toBe(1);
    expect((db.query("SELECT id FROM payloads ORDER BY id").all() as { id: string }[]).map((r) => r.id)).toEqual([direct.id, nested.id, inString.id].sort());
    // Once the event goes, what only it reached goes too.
    db.exec("DELETE FROM events");
    expect(sweepSqlite(db)).toBe(2);
    expect((db.query("SELECT id FROM payloads").all() as { id: string }[]).map((r) => r.id)).toEqual([inString.id]);
    db.close();
  });

  describe("PostgreSQL", () => {
    let cluster: TestPostgres;
    let sql: SQL;
    beforeAll(async () => {
      cluster = await startPostgres();
      sql = new SQL(await createTestDatabase(cluster.url), { max: 2 });
    });
    afterAll(async () => {
      await sql?.close();
      await cluster?.stop();
    });

    it("the same on a real cluster", async () => {
      await sql.unsafe("CREATE TABLE payloads (id TEXT PRIMARY KEY, data TEXT NOT NULL)");
      await sql.unsafe("CREATE TABLE events (stream_id TEXT, seq INTEGER, data TEXT)");
      await sql.unsafe("CREATE TABLE some_new_table (doc TEXT)");
      for (const p of PAYLOADS) await sql.unsafe("INSERT INTO payloads (id, data) VALUES ($1, $2)", [p.id, p.data]);
      await sql.unsafe("INSERT INTO events VALUES ('r1', 0, $1)", [EVENT]);
      await sql.unsafe("INSERT INTO some_new_table VALUES ($1)", [STATE]);
      expect(await sql.begin((tx) => sweepPostgres(tx))).toBe(1);
      expect(((await sql.unsafe("SELECT id FROM payloads ORDER BY id")) as { id: string }[]).map((r) => r.id)).toEqual([direct.id, nested.id, inString.id].sort());
      await sql.unsafe("DELETE FROM events");
      expect(await sql.begin((tx) => sweepPostgres(tx))).toBe(2);
      expect(((await sql.unsafe("SELECT id FROM payloads")) as { id: string }[]).map((r) => r.id)).toEqual([inString.id]);
    });
  });
});
