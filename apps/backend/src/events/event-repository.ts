import type { SlotOf } from "../storage/prepared-query.ts";
import { Table } from "../storage/table.ts";
import { withEnvelope } from "./event-envelope.ts";
import { hydratePayloadTexts } from "./payload-refs.ts";
import { PayloadStore } from "./payload-store.ts";

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

/** What the events' users call (one implementation, for both engines). */
export type EventRepository = Pick<EventTable, keyof EventTable>;

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
export class EventTable extends Table<{ events: EventsTable }> {
  private readonly payloads = new PayloadStore(this.engine);

  /** Events of a stream with `seq > after`, in order, at most `limit`; whole, as they were sent (`event-envelope.ts`, `payload-refs.ts`). */
  async listAfter(streamId: string, after: number, limit: number): Promise<StoredEvent[]> {
    // Built once (a queue-mode API reads each awaited run's last event with it: a Kysely compile per webhook request).
    const rows = await this.hot.rows(
      "listAfter",
      (slot) => this.db.selectFrom("events").select(["seq", "type", "data"]).where("stream_id", "=", slot(0)).where("seq", ">", slot(1)).orderBy("seq").limit(slot(2)),
      [streamId, after, limit],
    );
    const stored = rows.map((r) => ({ streamId, seq: r.seq, type: r.type, json: r.data }));
    const texts = await hydratePayloadTexts(stored.map(withEnvelope), this.payloads.load);
    return stored.map((e, at) => ({ ...e, json: texts[at] }));
  }

  /** The highest seq stored for the stream, -1 when it has none. */
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
    await this.insertRows("events", rows);
  }
}
