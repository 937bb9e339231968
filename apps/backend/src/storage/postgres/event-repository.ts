import type { EventRepository, StoredEvent } from "../event-repository.ts";
import type { PostgresConnection } from "./connection.ts";

/** Rows per INSERT: a statement takes at most 65,535 parameters. */
const MAX_ROWS = 10_000;

/**
 * Events per stream in PostgreSQL. `(stream_id, seq)` is the primary key, so a seq is stored once
 * whichever process writes it; an append is one statement, stored whole or refused whole.
 */
export class PostgresEventRepository implements EventRepository {
  constructor(private readonly pg: PostgresConnection) {}

  async listAfter(streamId: string, after: number, limit: number): Promise<StoredEvent[]> {
    const rows = await this.pg
      .current()
      .unsafe<{ seq: number; type: string; data: string }[]>("SELECT seq, type, data FROM events WHERE stream_id = $1 AND seq > $2 ORDER BY seq LIMIT $3", [streamId, after, limit]);
    return rows.map((r) => ({ streamId, seq: r.seq, type: r.type, json: r.data }));
  }

  async lastSeq(streamId: string): Promise<number> {
    const [row] = await this.pg.current().unsafe<{ seq: number | null }[]>("SELECT max(seq) AS seq FROM events WHERE stream_id = $1", [streamId]);
    return row?.seq ?? -1;
  }

  async append(events: StoredEvent[]): Promise<void> {
    if (events.length === 0) return;
    const rows = events.map((e) => ({ stream_id: e.streamId, seq: e.seq, type: e.type, data: e.json }));
    if (rows.length <= MAX_ROWS) return await this.insert(rows);
    await this.pg.transaction(async () => {
      for (let i = 0; i < rows.length; i += MAX_ROWS) await this.insert(rows.slice(i, i + MAX_ROWS));
    });
  }

  private async insert(rows: { stream_id: string; seq: number; type: string; data: string }[]): Promise<void> {
    const sql = this.pg.current();
    await sql`INSERT INTO events ${sql(rows)}`;
  }
}
