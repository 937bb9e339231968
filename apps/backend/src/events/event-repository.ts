import { powerOfTwoChunks, type SlotOf } from "../storage/prepared-query.ts";
import { Table } from "../storage/table.ts";

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

/** Events per insert statement (4 values each). */
const MAX_EVENTS_PER_INSERT = 1024;

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

  /** Built once per chunk size (powers of two): a run writer's flush on PostgreSQL compiled its insert every time. */
  async append(events: StoredEvent[]): Promise<void> {
    const chunks = [...powerOfTwoChunks(events, MAX_EVENTS_PER_INSERT)];
    const all = async () => {
      for (const chunk of chunks) {
        await this.hot.run(
          `append:${chunk.length}`,
          (slot) => this.db.insertInto("events").values(chunk.map((_, n) => ({ stream_id: slot(4 * n), seq: slot(4 * n + 1), type: slot(4 * n + 2), data: slot(4 * n + 3) }))),
          chunk.flatMap((e) => [e.streamId, e.seq, e.type, e.json]),
        );
      }
    };
    await (chunks.length > 1 ? this.engine.transaction(all) : all());
  }
}
