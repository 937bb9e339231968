import type { Compilable } from "kysely";
import { powerOfTwoChunks, slotsOf, type PreparedQueries, type SlotOf } from "../storage/prepared-query.ts";
import { Table, type TableEngine } from "../storage/table.ts";

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
 * Events per stream, on both engines. `(stream_id, seq)` is the primary key, so a seq is stored once
 * whichever process writes it; an append is stored whole or refused whole.
 */
export class EventTable extends Table<{ events: EventsTable }> implements EventRepository {
  async listAfter(streamId: string, after: number, limit: number): Promise<StoredEvent[]> {
    // Built once (a queue-mode API reads each awaited run's last event with it: a Kysely compile per webhook request).
    const rows = await this.hot.rows(
      "listAfter",
      (slot) => this.db.selectFrom("events").select(["seq", "type", "data"]).where("stream_id", "=", slot(0)).where("seq", ">", slot(1)).orderBy("seq").limit(slot(2)),
      [streamId, after, limit],
    );
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
    await insertChunks(this.hot, this.engine, "append", rows, (chunk) => this.db.insertInto("events").values(chunk));
  }
}

/** Values per multi-row insert (1,024 events or observations, 128 runs): far below either engine's limit of parameters. */
const MAX_VALUES = 4096;

/**
 * Inserts `rows` (columns to values, the same columns in the same order in each) by statements built once per chunk size
 * (`powerOfTwoChunks`): a run writer's flush on PostgreSQL compiled its inserts every time. Several statements are one
 * transaction, all stored or none.
 */
export async function insertChunks<R extends object>(hot: PreparedQueries, engine: TableEngine, key: string, rows: readonly R[], insert: (chunk: R[]) => Compilable): Promise<void> {
  if (rows.length === 0) return;
  const width = Object.keys(rows[0]).length;
  const chunks = [...powerOfTwoChunks(rows, Math.floor(MAX_VALUES / width))];
  const all = async () => {
    for (const chunk of chunks) {
      await hot.run(
        `${key}:${chunk.length}`,
        (slot) => insert(chunk.map((row, n) => slotsOf((i) => slot(n * width + i), row))),
        chunk.flatMap((row) => Object.values(row)),
      );
    }
  };
  await (chunks.length > 1 ? engine.transaction(all) : all());
}

/** Ids per `IN (...)` list: well under SQLite's and PostgreSQL's bound-parameter limits. */
export const ID_LIST_CHUNK = 500;

/** The rows `query` answers for `ids`, asked ID_LIST_CHUNK ids at a time. */
export async function rowsByIds<R>(ids: readonly string[], query: (chunk: string[]) => Promise<R[]>): Promise<R[]> {
  const rows: R[] = [];
  for (let i = 0; i < ids.length; i += ID_LIST_CHUNK) rows.push(...(await query(ids.slice(i, i + ID_LIST_CHUNK))));
  return rows;
}
