import type { Database } from "bun:sqlite";
import type { SQL } from "bun";

/**
 * A reference to a stored payload (`events/payload-refs.ts`: `{"$weftPayload":"<22-char id>"}`), also
 * where a record holds it inside a JSON string, however deep (escaped quotes).
 */
const REF = /\$weftPayload\\*"\s*:\s*\\*"([A-Za-z0-9_-]{22})/g;
const REF_SQL = String.raw`\$weftPayload\\*"\s*:\s*\\*"([A-Za-z0-9_-]{22})`;
const DELETE_BATCH = 500;

function refsIn(text: string, into: (id: string) => void): void {
  for (const match of text.matchAll(REF)) into(match[1]);
}

/*
 * Payloads no record references any more, directly or through another payload, are removed. Every
 * text column of every other table counts as a record (so a module that starts storing references
 * is covered without being listed here). Only while no Weft process runs: a server writes a payload
 * before the record that references it, and remembers which payloads it has written, so one removed
 * under a running server can be referenced again later and be missing.
 */

/** Ids reachable from `roots` through the payloads' own references. */
function reachable(roots: Set<string>, edges: Map<string, string[]>): Set<string> {
  const reached = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const id = queue.pop() as string;
    if (reached.has(id)) continue;
    reached.add(id);
    for (const next of edges.get(id) ?? []) if (!reached.has(next)) queue.push(next);
  }
  return reached;
}

/** On SQLite, inside the caller's transaction. */
export function sweepSqlite(db: Database): number {
  if (!db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'payloads'").get()) return 0;
  const roots = new Set<string>();
  const tables = db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'payloads'").all() as { name: string }[];
  for (const { name } of tables) {
    const columns = (db.query(`SELECT name, type FROM pragma_table_info('${name.replace(/'/g, "''")}')`).all() as { name: string; type: string }[]).filter((c) =>
      /TEXT|CHAR|CLOB|JSON|^$/i.test(c.type),
    );
    for (const column of columns) {
      const q = `"${column.name.replace(/"/g, '""')}"`;
      for (const row of db.query(`SELECT ${q} AS text FROM "${name.replace(/"/g, '""')}" WHERE ${q} LIKE '%$weftPayload%'`).iterate() as Iterable<{ text: unknown }>) {
        if (typeof row.text === "string") refsIn(row.text, (id) => roots.add(id));
      }
    }
  }
  const edges = new Map<string, string[]>();
  const all: string[] = [];
  for (const row of db.query("SELECT id, data FROM payloads").iterate() as Iterable<{ id: string; data: string }>) {
    all.push(row.id);
    const refs: string[] = [];
    refsIn(row.data, (id) => refs.push(id));
    if (refs.length > 0) edges.set(row.id, refs);
  }
  const keep = reachable(roots, edges);
  const gone = all.filter((id) => !keep.has(id));
  for (let i = 0; i < gone.length; i += DELETE_BATCH) {
    const batch = gone.slice(i, i + DELETE_BATCH);
    db.query(`DELETE FROM payloads WHERE id IN (${batch.map(() => "?").join(",")})`).run(...batch);
  }
  return gone.length;
}

/** On PostgreSQL, inside the caller's transaction `tx`. */
export async function sweepPostgres(tx: SQL): Promise<number> {
  const [present] = (await tx.unsafe("SELECT to_regclass('payloads') IS NOT NULL AS present")) as { present: boolean }[];
  if (!present?.present) return 0;
  {
    // Writers of payloads wait until the sweep is done (none should run; see above).
    await tx.unsafe("LOCK TABLE payloads IN SHARE ROW EXCLUSIVE MODE");
    const columns = (await tx.unsafe(
      "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name != 'payloads' AND data_type IN ('text', 'character varying', 'json', 'jsonb')",
    )) as { table_name: string; column_name: string }[];
    const roots = new Set<string>();
    for (const { table_name, column_name } of columns) {
      const t = `"${table_name.replace(/"/g, '""')}"`;
      const c = `"${column_name.replace(/"/g, '""')}"`;
      // The references are found by the server; only ids travel.
      const rows = (await tx.unsafe(`SELECT DISTINCT (regexp_matches(${c}::text, $1, 'g'))[1] AS id FROM ${t} WHERE ${c}::text LIKE '%$weftPayload%'`, [REF_SQL])) as { id: string }[];
      for (const row of rows) roots.add(row.id);
    }
    const edges = new Map<string, string[]>();
    for (const row of (await tx.unsafe("SELECT id, (regexp_matches(data, $1, 'g'))[1] AS ref FROM payloads WHERE data LIKE '%$weftPayload%'", [REF_SQL])) as { id: string; ref: string }[]) {
      const list = edges.get(row.id);
      if (list) list.push(row.ref);
      else edges.set(row.id, [row.ref]);
    }
    const keep = reachable(roots, edges);
    const all = ((await tx.unsafe("SELECT id FROM payloads")) as { id: string }[]).map((r) => r.id);
    const gone = all.filter((id) => !keep.has(id));
    for (let i = 0; i < gone.length; i += DELETE_BATCH) {
      const batch = gone.slice(i, i + DELETE_BATCH);
      await tx.unsafe(`DELETE FROM payloads WHERE id IN (${batch.map((_, n) => `$${n + 1}`).join(",")})`, batch);
    }
    return gone.length;
  }
}
