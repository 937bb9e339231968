import type { Database, Statement } from "bun:sqlite";

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

export class SqliteEventRepository implements EventRepository {
  private readonly selectAfter: Statement<{ seq: number; type: string; data: string }, [string, number, number]>;
  private readonly selectLast: Statement<{ seq: number | null }, [string]>;
  private readonly insert: Statement<unknown, [string, number, string, string]>;

  constructor(private readonly db: Database) {
    this.selectAfter = db.query("SELECT seq, type, data FROM events WHERE stream_id = ? AND seq > ? ORDER BY seq LIMIT ?");
    this.selectLast = db.query("SELECT max(seq) AS seq FROM events WHERE stream_id = ?");
    this.insert = db.query("INSERT INTO events (stream_id, seq, type, data) VALUES (?, ?, ?, ?)");
  }

  async listAfter(streamId: string, after: number, limit: number): Promise<StoredEvent[]> {
    return this.selectAfter.all(streamId, after, limit).map((r) => ({ streamId, seq: r.seq, type: r.type, json: r.data }));
  }

  lastSeqSync(streamId: string): number {
    return this.selectLast.get(streamId)?.seq ?? -1;
  }

  async lastSeq(streamId: string): Promise<number> {
    return this.lastSeqSync(streamId);
  }

  /** Synchronous form, for the batched writer's transaction. */
  appendSync(events: StoredEvent[]): void {
    for (const e of events) this.insert.run(e.streamId, e.seq, e.type, e.json);
  }

  /** All or nothing: a seq already stored for its stream refuses the whole append. */
  async append(events: StoredEvent[]): Promise<void> {
    this.db.transaction(() => this.appendSync(events))();
  }
}
