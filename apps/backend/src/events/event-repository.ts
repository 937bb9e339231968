import type { Kysely } from "kysely";
import { PreparedQueries, type SlotOf } from "../storage/prepared-query.ts";
import { createQueryDb } from "../storage/query-db.ts";
import type { SqlHandle, Transact } from "../storage/sql-handle.ts";

/**
 * One persisted event of a stream (a run, a conversation or a scene). The event is kept as the
 * JSON text it was sent as, so replays and the HTTP API pass it on without re-encoding it.
 */
export interface StoredEvent {
  streamId: string;
  seq: number;
  type: string;
  json: string;
}

export interface EventRepository {
  /** Events of a stream with `seq > after`, in order, at most `limit`. */
  listAfter(streamId: string, after: number, limit: number): Promise<StoredEvent[]>;
  /** The highest seq stored for the stream, -1 when it has none. */
  lastSeq(streamId: string): Promise<number>;
  append(events: StoredEvent[]): Promise<void>;
}

interface EventsTable {
  stream_id: string;
  seq: number;
  type: string;
  data: string;
}

/**
 * Rows per INSERT: a statement takes at most 65,535 parameters on PostgreSQL and 32,766 on SQLite.
 * Appends of more are one transaction.
 */
export const MAX_INSERT_ROWS = 5_000;

/**
 * Events per stream, on both engines. `(stream_id, seq)` is the primary key, so a seq is stored once
 * whichever process writes it; an append is stored whole or refused whole.
 */
export class EventTable implements EventRepository {
  private readonly db: Kysely<{ events: EventsTable }>;
  /** A run start's look-up (`bench:server`), built once. */
  private readonly hot: PreparedQueries;

  constructor(
    handle: SqlHandle,
    private readonly transaction: Transact,
  ) {
    this.db = createQueryDb(handle);
    this.hot = new PreparedQueries(handle);
  }

  async listAfter(streamId: string, after: number, limit: number): Promise<StoredEvent[]> {
    const rows = await this.db.selectFrom("events").select(["seq", "type", "data"]).where("stream_id", "=", streamId).where("seq", ">", after).orderBy("seq").limit(limit).execute();
    return rows.map((r) => ({ streamId, seq: r.seq, type: r.type, json: r.data }));
  }

  async lastSeq(streamId: string): Promise<number> {
    const last = (slot: SlotOf) =>
      this.db
        .selectFrom("events")
        .select((eb) => eb.fn.max("seq").as("seq"))
        .where("stream_id", "=", slot(0));
    const [row] = await this.hot.rows("lastSeq", last, [streamId]);
    return row?.seq ?? -1;
  }

  async append(events: StoredEvent[]): Promise<void> {
    const rows = events.map((e) => ({ stream_id: e.streamId, seq: e.seq, type: e.type, data: e.json }));
    if (rows.length <= MAX_INSERT_ROWS) return await this.insert(rows);
    await this.transaction(async () => {
      for (let i = 0; i < rows.length; i += MAX_INSERT_ROWS) await this.insert(rows.slice(i, i + MAX_INSERT_ROWS));
    });
  }

  private async insert(rows: EventsTable[]): Promise<void> {
    if (rows.length > 0) await this.db.insertInto("events").values(rows).execute();
  }
}
